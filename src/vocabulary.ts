import type { Sample } from './metrics/sample.js';
import type { Api } from './upstash/client.js';

// The words every layer above upstash/ and metrics/ shares, each defined here once: the config
// derives its source lists and settings from them, the sources build their units with them, and the
// poller schedules and reports those units. Nothing here does anything.

/**
 * The sources of each API: the names under `sources:` in the config and the `source` label. A
 * source module whose name is not here fails the type check (src/sources/kinds.ts), and so does a
 * name here without a source module.
 */
export const SOURCE_NAMES = {
  qstash: ['flow_control', 'url_groups', 'queues', 'schedules', 'global_parallelism', 'dlq', 'workflow_dlq'],
  management: ['databases', 'redis_stats', 'qstash_users', 'qstash_stats'],
} as const satisfies Record<Api, readonly string[]>;
export type SourceName<A extends Api = Api> = (typeof SOURCE_NAMES)[A][number];
/** The API whose credentials the source `Name` polls with. */
export type ApiOf<Name extends SourceName> = {
  [A in Api]: Name extends SourceName<A> ? A : never;
}[Api];

/**
 * What one unit of a source is, and which health label names it: a source is polled once per
 * account, or once per ID of a kind the account has (a database, a QStash instance). A new kind of
 * unit is one line here: its health label joins every health series.
 */
export const UNIT_KINDS = {
  account: undefined,
  database: 'database_id',
  qstash_instance: 'qstash_id',
} as const;
export type UnitKind = keyof typeof UNIT_KINDS;
/** The unit kinds polled per ID (not once per account). */
export type PerIdUnit = Exclude<UnitKind, 'account'>;
type UnitLabelName = (typeof UNIT_KINDS)[PerIdUnit];

const PER_ID_LABELS = Object.values(UNIT_KINDS).filter((label) => label !== undefined);
/** The labels of every health series, in order: which unit of which source of which account. */
export const HEALTH_LABELS: readonly HealthLabelName[] = ['source', 'account', ...PER_ID_LABELS];
export type HealthLabelName = 'source' | 'account' | UnitLabelName;
/** Which polled unit a health series speaks of; a unit label that does not apply is empty. */
export type UnitLabels = Readonly<Record<HealthLabelName, string>>;

/** The health labels of the unit of `source` for `id` (of `kind`; '' for an account-wide unit). */
export function unitLabels(source: string, account: string, kind: UnitKind, id: string): UnitLabels {
  const labels = Object.fromEntries(HEALTH_LABELS.map((name) => [name, ''])) as Record<
    HealthLabelName,
    string
  >;
  labels.source = source;
  labels.account = account;
  const label = UNIT_KINDS[kind];
  if (label !== undefined) labels[label] = id;
  return labels;
}

/** What a poll may use: its abort signal and the time by which it should be over. */
export interface PollContext {
  /** Aborted on shutdown, or when the unit is removed. */
  readonly signal: AbortSignal;
  /** Unix ms of the unit's next tick. */
  readonly deadline: number;
}

/** What one poll of a unit brought. */
export interface PollResult {
  readonly samples: readonly Sample[];
  /**
   * Upstream fields skipped alone because their value had the wrong type (the rest of the unit
   * still exports): counted per field, and logged once until the field comes right.
   */
  readonly rejectedFields?: readonly string[];
  /**
   * Label values a cap left out (the `state`s of qstash_stats beyond 20, the DLQ groupings beyond
   * theirs), counted with the values cut to length in upstash_exporter_label_values_truncated_total.
   */
  readonly labelValuesDropped?: number;
  /**
   * What the poll learnt for other units (a listing's IDs): the poller runs it after it has
   * recorded this poll's success, and only if the unit is still the one configured (a poll that a
   * reload or a removal overtook carries the old configuration: its news is dropped).
   */
  readonly onRecorded?: () => void;
}

/** One thing polled on its own: a source of an account, or a source of one ID (a database's stats). */
export interface PollUnit {
  /** Unique and stable (`<source>/<account>/<id>`): orders the exposition and keys the state. */
  readonly id: string;
  readonly labels: UnitLabels;
  /**
   * Units of one per-ID source of one account (the stats of each database) share a family
   * (`<source>/<account>`): they are polled at evenly spaced offsets within the interval, not all at
   * the tick, and discovery replaces them together.
   */
  readonly family?: string;
  /**
   * Polled only for what its poll does on the side (a listing another shard exports, polled here to
   * learn this shard's units): no series, no health metrics, not on the landing page; failures logged.
   */
  readonly silent?: boolean;
  poll(context: PollContext): Promise<PollResult>;
}

/** Caps on the series a source exports per account (the config's `limits`). */
export interface Limits {
  readonly maxFlowControlKeys: number;
  readonly maxUrlGroups: number;
  readonly maxCommandsPerDatabase: number;
  readonly maxQueues: number;
  readonly maxSchedules: number;
  /** Pages of 100 messages read per poll of a dead-letter queue (`dlq`, `workflow_dlq`). */
  readonly maxDlqPages: number;
}

/** Which of `total` processes sharing one configuration this is (0-based `shard`). */
export interface Sharding {
  readonly shard: number;
  readonly total: number;
}
