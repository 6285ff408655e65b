import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import { DataSeries } from '../metrics/data-series.js';
import { healthKey } from '../poller/health.js';
import { Poller, type UnitStatus } from '../poller/poller.js';
import { createSelfMetrics } from '../poller/self-metrics.js';
import type { EntryEvents } from '../sources/event-store.js';
import type { Listed } from '../sources/source.js';
import { DATA_METRICS } from '../sources/kinds.js';
import { PollPlan } from './plan.js';
import type { Carried, Publication } from './protocol.js';

/** What the polling side needs besides the configuration. */
export interface PollingOptions {
  readonly logger: Logger;
  readonly version: string;
  /** What a dead worker last published, for a restarted one to continue from. */
  readonly carried?: Carried;
  /** Hears each unit's health key as its poll starts and as it ends (told to the serving thread at once). */
  readonly onPoll?: (key: string, running: boolean) => void;
}

/** The polling side of the exporter, built from one Config: what the poll worker runs. */
export interface Polling {
  /** Polls every unit now, then on its schedule. */
  start(): void;
  /** Applies a new configuration (see {@link Poller.reconfigure}); the next {@link take} says what it changed. */
  reload(config: Config): Promise<void>;
  /** Stops polling (aborting polls in flight) and closes the Upstash sockets. */
  stop(): Promise<void>;
  /** Whether anything moved since the last {@link take} (true before the first). */
  moved(): boolean;
  /** What moved since the last call, from one moment; the buffers are the caller's to transfer. */
  take(): Publication;
}

/**
 * Builds the poller, its plan, the data series and the health counts from a Config; nothing runs
 * until `start()`. Scrapes never reach any of it: the serving thread is handed publications. A
 * restarted worker is given what its predecessor last published: its units come back with their
 * state, and what the serving thread holds of units this configuration no longer has is dropped.
 */
export function createPolling(config: Config, options: PollingOptions): Polling {
  const { logger, carried } = options;
  const metrics = createSelfMetrics(carried?.health, options.onPoll);
  const series = new DataSeries(DATA_METRICS);
  series.adopt(carried?.held ?? []);
  const plan = new PollPlan({
    version: options.version,
    metrics,
    logger,
    onDiscovered: (key, family, units) => poller.syncUnits(key, family, units),
    ...(carried !== undefined && { known: carried.known, events: carried.events }),
  });
  // One poller for the life of the worker: a reload reconfigures it, so no unit loses its state.
  const poller = new Poller({
    groups: plan.plan(config).groups,
    series,
    metrics,
    logger,
    ...(carried !== undefined && { carried: carried.units }),
  });
  if (carried !== undefined) forgetLeftovers(poller, series, metrics);
  let published: { series: number; metrics: number; ready: boolean } | undefined;
  let knownSent = new Map<string, Listed>();
  const knownMoved = (): boolean =>
    plan.known.size !== knownSent.size ||
    [...plan.known].some(([key, listed]) => knownSent.get(key) !== listed);
  // A poll replaces an event state whole (never edits one), so a state's identity says whether it moved.
  // Nothing sent yet: the first publication carries every entry's start, so that W outlives a worker
  // that dies before its first poll lands (docs/metrics.md, Delivery errors and workflow runs).
  let eventsSent = new Map<string, unknown>();
  const eventsMoved = (): boolean => {
    const now = eventStates(plan.events);
    return now.size !== eventsSent.size || [...now].some(([key, state]) => eventsSent.get(key) !== state);
  };

  return {
    start() {
      poller.start();
    },
    async reload(next) {
      logger.level = next.logLevel;
      const { groups, retired } = plan.plan(next);
      await poller.reconfigure(groups);
      if (retired !== undefined) void poller.settled().then(async () => retired.close());
    },
    async stop() {
      await poller.stop();
      await plan.close();
    },
    moved() {
      return (
        published?.series !== series.version ||
        published.metrics !== metrics.version ||
        published.ready !== poller.ready ||
        knownMoved() ||
        eventsMoved()
      );
    },
    take() {
      const now = { series: series.version, metrics: metrics.version, ready: poller.ready };
      const first = published === undefined;
      const newKnown = knownMoved();
      published = now;
      if (newKnown) knownSent = new Map(plan.known);
      const newEvents = eventsMoved();
      if (newEvents) eventsSent = eventStates(plan.events);
      // All of it from one moment: nothing here awaits, so no poll lands in between.
      return {
        catalogue: first ? series.metrics : undefined,
        data: series.takeChanges(),
        health: metrics.takeChanges(),
        ready: now.ready,
        polled: poller.unitIds.length,
        status: ownBytes(JSON.stringify(poller.status() satisfies UnitStatus[])),
        known: newKnown ? knownSent : undefined,
        // Copied by postMessage as it is sent: later polls change the worker's, not the message's.
        events: newEvents ? plan.events : undefined,
      };
    },
  };
}

/** Drops what a dead worker published of units this worker does not poll (a reload changed them). */
function forgetLeftovers(
  poller: Poller,
  series: DataSeries,
  metrics: ReturnType<typeof createSelfMetrics>,
): void {
  const ids = new Set(poller.unitIds);
  for (const id of [...series.ids()]) if (!ids.has(id)) series.drop(id);
  metrics.keepOnly(new Set(poller.status().map((row) => healthKey(row.labels))));
}

/** `text` in memory of its own (a transferred buffer must not be a slice of Node's shared pool). */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 0, 'utf8');
  return bytes;
}

/**
 * Every entry's event states by `<entry key>/<source>/<state>`, its sources' starts by
 * `<entry key> <source>`, its own by `<entry key> `, and how many sources read the SDK path.
 */
function eventStates(events: ReadonlyMap<string, EntryEvents>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, entry] of events) {
    out.set(key, entry.sdkPaths.size);
    out.set(`${key} `, entry.since);
    for (const [source, start] of entry.starts) out.set(`${key} ${source}`, start);
    for (const [name, state] of entry.states) out.set(`${key}/${name}`, state);
  }
  return out;
}
