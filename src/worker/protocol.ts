import { Secret } from '../config/secret.js';
import type { Config, ManagementAccount, QstashAccount } from '../config/types.js';
import type { DataMetric } from '../metrics/catalogue.js';
import type { UnitChange } from '../metrics/data-series.js';
import type { HealthChanges, HealthState } from '../poller/health.js';
import type { EntryEvents } from '../sources/event-store.js';
import type { Listed } from '../sources/source.js';
import type { UnitStatus } from '../vocabulary.js';

// Everything the serving thread (thread.ts) and the poll worker (worker-main.ts) say to each other,
// messages and payloads: a request carries an `id`, and each kind of request has one kind of reply
// with the same `id`. The records inside them (a unit's bytes, a health record, a status row) are the
// types of the layers that make them: imports go one way, and those layers know nothing of threads.

/**
 * A Config as it crosses to the poll worker (structured clone): a {@link Secret} would arrive as an
 * empty object, so the credentials travel as plain strings inside the message, within the process,
 * and become Secrets again on the other side before anything else sees them. Never log one.
 */
export interface WireConfig extends Omit<Config, 'qstash' | 'management'> {
  readonly qstash: readonly (Omit<QstashAccount, 'token'> & { readonly token: string })[];
  readonly management: readonly (Omit<ManagementAccount, 'apiKey'> & { readonly apiKey: string })[];
}

/** The configuration as the poll worker is sent it. */
export function toWire(config: Config): WireConfig {
  return {
    ...config,
    qstash: config.qstash.map((account) => ({ ...account, token: account.token.reveal() })),
    management: config.management.map((account) => ({ ...account, apiKey: account.apiKey.reveal() })),
  };
}

/** The configuration the poll worker was sent, its credentials Secrets again. */
export function fromWire(wire: WireConfig): Config {
  return {
    ...wire,
    qstash: wire.qstash.map((account) => ({ ...account, token: new Secret(account.token) })),
    management: wire.management.map((account) => ({ ...account, apiKey: new Secret(account.apiKey) })),
  };
}

/** What a restarted worker continues from: what its dead predecessor last published. */
export interface Carried {
  /** Every unit's landing-page row, by unit ID: last success (the staleness clock), outcome… */
  readonly units: ReadonlyMap<string, UnitStatus>;
  /** The health records, counters included (they never go back to 0). */
  readonly health: HealthState;
  /** The units whose data series the serving thread holds: kept until a poll replaces or drops them. */
  readonly held: readonly string[];
  /** What the listings last said, by `<entry key>/<unit kind>`: the discovered units come back at once. */
  readonly known: ReadonlyMap<string, Listed>;
  /** The event sources' watermarks and counters, by entry key: counted events are not counted again. */
  readonly events: ReadonlyMap<string, EntryEvents>;
}

/** What the poll worker is started with. */
export interface WorkerInit {
  readonly config: WireConfig;
  readonly version: string;
  /** Undefined for the first worker. */
  readonly carried: Carried | undefined;
}

/**
 * What the serving thread is handed of the polling side's state: what changed since the last
 * publication, rendered to bytes where it is a lot (the data series), as records where it is counts
 * (the health series). Every buffer owns its memory and is transferred (see {@link transferList}).
 */
export interface Publication {
  /**
   * The data section's families in exposition order, in a worker's first publication (undefined
   * after): the serving thread learns them from the worker rather than importing the sources, whose
   * modules (the Upstash client, undici, every schema) would otherwise load into its heap too.
   */
  readonly catalogue: readonly DataMetric[] | undefined;
  readonly data: readonly UnitChange[];
  readonly health: HealthChanges;
  /** Whether every unit has finished its first poll (see Poller.ready). */
  readonly ready: boolean;
  /** How many units are polled (what a reload answers with). */
  readonly polled: number;
  /** The landing page's rows ({@link UnitStatus}[]), as JSON: parsed only when the page is asked for. */
  readonly status: Uint8Array;
  /** What the listings say, when it changed since the last publication. */
  readonly known: ReadonlyMap<string, Listed> | undefined;
  /** The event sources' state (watermarks, counters), when a poll moved it since the last publication. */
  readonly events: ReadonlyMap<string, EntryEvents> | undefined;
}

/** What the poll worker's thread holds (its own heap and handles, which the serving thread cannot see). */
export interface WorkerStats {
  /** The worker's V8 heap in use, after a full collection when the process runs with --expose-gc. */
  readonly heapUsedBytes: number;
  readonly sockets: number;
  readonly timers: number;
  readonly handles: number;
}

/** From the serving thread to the poll worker. */
export type ToWorker =
  | { readonly type: 'start' }
  | { readonly type: 'reload'; readonly id: number; readonly config: WireConfig }
  | { readonly type: 'stop'; readonly id: number }
  | { readonly type: 'stats'; readonly id: number };

/** A request, and its reply (with the same `id`). */
export type Request = Extract<ToWorker, { id: number }>;

/** The reply to each request, by the request's type. */
export interface Replies {
  /** The reload applied: everything it changed (the units now polled among it), to be taken with it. */
  readonly reload:
    | { readonly type: 'reloaded'; readonly id: number; readonly publication: Publication }
    | { readonly type: 'reload-failed'; readonly id: number; readonly error: string };
  readonly stop: { readonly type: 'stopped'; readonly id: number };
  readonly stats: { readonly type: 'stats'; readonly id: number; readonly stats: WorkerStats };
}

export type Reply = Replies[keyof Replies];

/** From the poll worker to the serving thread. */
export type FromWorker =
  /** One log line, formatted and redacted by the worker's logger, for the process's destination. */
  | { readonly type: 'log'; readonly line: string }
  | { readonly type: 'publish'; readonly publication: Publication }
  /**
   * A unit's poll started (its health key), said at once rather than with the next publication: a
   * death before that publication is blamed on it (docs/metrics.md, The exporter itself).
   */
  | { readonly type: 'polling'; readonly unit: string }
  /** That poll ended (its outcome goes with the next publication): a death after it is not its. */
  | { readonly type: 'polled'; readonly unit: string }
  | Reply;

/** Every buffer of a publication, to be transferred (moved, not copied) with it. */
export function transferList(publication: Publication): ArrayBuffer[] {
  const buffers = publication.data.flatMap(({ unit }) => (unit === undefined ? [] : [unit.bytes]));
  return [...buffers, publication.status]
    .filter((bytes) => bytes.byteLength > 0)
    .map((bytes) => bytes.buffer as ArrayBuffer);
}
