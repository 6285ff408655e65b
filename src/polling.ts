import { crc32 } from 'node:zlib';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Config } from './config/types.js';
import type { DataMetric } from './metrics/catalogue.js';
import { DataSeries, type FamilyLines } from './metrics/data-series.js';
import { renderRegistry, type Format } from './metrics/exposition.js';
import { PollPlan } from './poll-plan.js';
import { Poller, type UnitStatus } from './poller/poller.js';
import { createSelfMetrics } from './poller/self-metrics.js';
import { DATA_METRICS } from './sources/kinds.js';

/** What the polling side needs besides the configuration. */
export interface PollingOptions {
  readonly logger: Logger;
  readonly version: string;
}

/** A run of bytes and its CRC-32. */
export interface Bytes {
  readonly bytes: Buffer;
  readonly crc: number;
}

/**
 * What the serving thread is handed of the polling side's state: everything rendered to bytes,
 * ready to be transferred (each buffer owns its memory; see {@link transferList}).
 */
export interface Publication {
  /** The first publication of a poller says everything: its catalogue, and every family. */
  readonly whole: boolean;
  /** The data families, in exposition order, with their HELP text; on a whole publication only. */
  readonly catalogue: readonly DataMetric[] | undefined;
  /** The data families whose lines changed (an empty one has no samples left). */
  readonly families: readonly FamilyLines[];
  /** The health metrics and build info, whole, in each format. */
  readonly health: Readonly<Record<Format, Bytes>>;
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
  const registry = new Registry();
  const metrics = createSelfMetrics(registry, { version, sharding: config.sharding });
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
      // All of it from one moment: no poll can land between here and the end (no I/O is awaited).
      const families = series.takeChanges();
      const status = ownBuffer(JSON.stringify(poller.status() satisfies UnitStatus[]));
      const [text, openmetrics] = await Promise.all([
        renderRegistry(registry, 'text'),
        renderRegistry(registry, 'openmetrics'),
      ]);
      return {
        whole,
        catalogue: whole ? DATA_METRICS : undefined,
        families,
        health: { text: bytesOf(text), openmetrics: bytesOf(openmetrics) },
        ready: now.ready,
        status,
      };
    },
  };
}

/** Every buffer of a publication, to be transferred (moved, not copied) with it. */
export function transferList(publication: Publication): ArrayBuffer[] {
  return [
    ...publication.families.map((family) => family.lines),
    publication.health.text.bytes,
    publication.health.openmetrics.bytes,
    publication.status,
  ].map((buffer) => buffer.buffer as ArrayBuffer);
}

function bytesOf(text: string): Bytes {
  const bytes = ownBuffer(text);
  return { bytes, crc: bytes.length === 0 ? 0 : crc32(bytes) };
}

/** `text` in a buffer of its own (a transferred buffer must not be a slice of Node's shared pool). */
function ownBuffer(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 0, 'utf8');
  return bytes;
}
