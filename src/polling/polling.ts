import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { DataMetric } from '../metrics/catalogue.js';
import { DataSeries, type FamilyBlocks } from '../metrics/data-series.js';
import { PollPlan } from './plan.js';
import { Poller, type UnitStatus } from '../poller/poller.js';
import { createSelfMetrics } from '../poller/self-metrics.js';
import { DATA_METRICS } from '../sources/kinds.js';

/** What the polling side needs besides the configuration. */
export interface PollingOptions {
  readonly logger: Logger;
  readonly version: string;
}

/** A section as the poller hands it over: the families whose lines changed since the last time. */
export interface SectionChanges {
  /** Every family of the section, in exposition order, with its HELP text; on a whole publication only. */
  readonly catalogue: readonly DataMetric[] | undefined;
  /** The families whose lines changed, by block (see {@link DataSeries.takeChanges}). */
  readonly families: readonly FamilyBlocks[];
}

/**
 * What the serving thread is handed of the polling side's state: everything rendered to bytes,
 * ready to be transferred (each buffer owns its memory; see {@link transferList}).
 */
export interface Publication {
  /** The first publication of a poller says everything: its catalogues, and every family. */
  readonly whole: boolean;
  /** The data series. */
  readonly data: SectionChanges;
  /** The health metrics, build info and shard gauges. */
  readonly health: SectionChanges;
  /** Whether every unit has finished its first poll (see {@link Poller.ready}). */
  readonly ready: boolean;
  /** The landing page's rows ({@link UnitStatus}[]), as JSON: parsed only when the page is asked for. */
  readonly status: Buffer;
}

/** The polling side of the exporter, built from one Config: what the poll worker runs. */
export interface Polling {
  /** Polls every unit now, then on its schedule. */
  start(): void;
  /** Applies a new configuration (see {@link Poller.reconfigure}); resolves with the units now polled. */
  reload(config: Config): Promise<number>;
  /** Stops polling (aborting polls in flight) and closes the Upstash sockets. */
  stop(): Promise<void>;
  /** What moved since the last publication (undefined: nothing did); the first one is whole. */
  publish(): Promise<Publication | undefined>;
}

/**
 * Builds the poller, its plan, the data series and the health metrics from a Config; nothing runs
 * until `start()`. Scrapes never reach any of it: the serving thread is handed publications.
 */
export function createPolling(config: Config, options: PollingOptions): Polling {
  const { logger, version } = options;
  const metrics = createSelfMetrics({ version, sharding: config.sharding });
  const series = new DataSeries(DATA_METRICS);
  const plan = new PollPlan({
    version,
    metrics,
    logger,
    onDiscovered: (key, family, units) => poller.syncUnits(key, family, units),
  });
  // One poller for the life of the worker: a reload reconfigures it, so no unit loses its state.
  const poller = new Poller({ groups: plan.plan(config).groups, series, metrics, logger });
  let published: { series: number; metrics: number; ready: boolean } | undefined;

  return {
    start() {
      poller.start();
    },
    async reload(next) {
      logger.level = next.logLevel;
      const { groups, retired } = plan.plan(next);
      await poller.reconfigure(groups);
      if (retired !== undefined) void poller.settled().then(async () => retired.close());
      return poller.unitIds.length;
    },
    async stop() {
      await poller.stop();
      await plan.close();
    },
    async publish() {
      const now = { series: series.version, metrics: metrics.version, ready: poller.ready };
      const moved =
        published?.series !== now.series ||
        published.metrics !== now.metrics ||
        published.ready !== now.ready;
      if (!moved) return undefined;
      const whole = published === undefined;
      published = now;
      // All of it from one moment: nothing here awaits, so no poll lands in between.
      return Promise.resolve({
        whole,
        data: { catalogue: whole ? DATA_METRICS : undefined, families: series.takeChanges() },
        health: { catalogue: whole ? metrics.catalogue : undefined, families: metrics.takeChanges() },
        ready: now.ready,
        status: ownBuffer(JSON.stringify(poller.status() satisfies UnitStatus[])),
      });
    },
  };
}

/** Every buffer of a publication, to be transferred (moved, not copied) with it. */
export function transferList(publication: Publication): ArrayBuffer[] {
  return [
    ...[...publication.data.families, ...publication.health.families].flatMap((family) =>
      family.changed.map((block) => block.lines),
    ),
    publication.status,
  ].map((buffer) => buffer.buffer as ArrayBuffer);
}

/** `text` in a buffer of its own (a transferred buffer must not be a slice of Node's shared pool). */
function ownBuffer(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 0, 'utf8');
  return bytes;
}
