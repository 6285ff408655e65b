import type { Sample } from './metrics/sample.js';
import { SOURCES } from './source-registry.js';
import type { Api } from './upstash/client.js';

// The words every layer above upstash/ and metrics/ shares, each defined here once: the config
// derives its source lists and settings from them, the sources build their units with them, and the
// poller schedules and reports those units. Nothing here does anything.

type Sources = typeof SOURCES;
type Row = Sources[keyof Sources];

/**
 * The sources of `api` (of either API by default): the names under `sources:` in the config and the
 * `source` label, one per row of the table of sources (src/source-registry.ts).
 */
export type SourceName<A extends Api = Api> = {
  [Name in keyof Sources]: Sources[Name]['api'] extends A ? Name : never;
}[keyof Sources];

/** The sources of each API, in the order of the table of sources (the exposition order). */
export const SOURCE_NAMES: { readonly [A in Api]: readonly SourceName<A>[] } = {
  qstash: namesOf('qstash'),
  management: namesOf('management'),
};

function namesOf<A extends Api>(api: A): SourceName<A>[] {
  return (Object.keys(SOURCES) as SourceName[]).filter(
    (name): name is SourceName<A> => SOURCES[name].api === api,
  );
}

/**
 * The schedules an entry of `api` has besides its interval: a source too costly to poll every interval
 * (a database's backups, a DLQ read page by page) runs on one, its units in a poll group of their own.
 * The entry sets each as `<name>_interval`. A source's row names its schedule (src/source-registry.ts).
 */
export type OwnSchedule<A extends Api = Api> = Extract<
  Row,
  { readonly api: A; readonly schedule: string }
>['schedule'];

/** What an entry of `api` has for each of its own schedules (a `Schedule`, in the config). */
export type PerOwnSchedule<A extends Api, T> = Readonly<Record<OwnSchedule<A>, T>>;

/** The own schedules of `api`'s entries, in the order of the table of sources. */
export function ownSchedules<A extends Api>(api: A): OwnSchedule<A>[] {
  const names = SOURCE_NAMES[api].map(ownScheduleOf).filter((schedule) => schedule !== undefined);
  return [...new Set(names)] as OwnSchedule<A>[];
}

/** The sources of `api` that run on its own schedule `schedule`. */
export function onOwnSchedule<A extends Api>(api: A, schedule: OwnSchedule<A>): readonly SourceName<A>[] {
  return SOURCE_NAMES[api].filter((name) => ownScheduleOf(name) === schedule);
}

/** The own schedule source `name` runs on; undefined: its entry's interval. */
export function ownScheduleOf(name: SourceName): OwnSchedule | undefined {
  const row: Row = SOURCES[name];
  return 'schedule' in row ? row.schedule : undefined;
}

/**
 * What one unit of a source is, and which health label names it: a source is polled once per
 * account, or once per ID of a kind the account has (a database, a QStash instance, a Vector or a
 * Search index). A new kind of unit is one line here: its health label joins every health series
 * (two kinds may share one, as the two index products share `index_id`).
 */
export const UNIT_KINDS = {
  account: undefined,
  database: 'database_id',
  qstash_instance: 'qstash_id',
  vector_index: 'index_id',
  search_index: 'index_id',
} as const;
export type UnitKind = keyof typeof UNIT_KINDS;
/** The unit kinds polled per ID (not once per account). */
export type PerIdUnit = Exclude<UnitKind, 'account'>;
type UnitLabelName = (typeof UNIT_KINDS)[PerIdUnit];

const PER_ID_LABELS = [...new Set(Object.values(UNIT_KINDS).filter((label) => label !== undefined))];
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

/**
 * The rows of the table of sources as the layers above read a source polled per ID: its row names a
 * unit kind (`per`) and the source whose listing discovers the IDs (`listedBy`). Assigning the table
 * here is the check: a row naming a kind that is not in UNIT_KINDS, or a source that does not exist,
 * does not compile.
 */
const LISTED: Readonly<
  Record<SourceName, { readonly api: Api; readonly per?: PerIdUnit; readonly listedBy?: SourceName }>
> = SOURCES;

type PerMap = {
  readonly [Name in SourceName]: Sources[Name] extends { readonly per: infer Per extends PerIdUnit }
    ? Per
    : 'account';
};
/** The unit kind source `Name` is polled per, from its row: a per-ID kind, or once per account. */
export type PerOf<Name extends SourceName> = PerMap[Name];

type ListsMap = {
  readonly [Listing in SourceName]: {
    readonly [Name in SourceName]: Sources[Name] extends {
      readonly listedBy: Listing;
      readonly per: infer Per;
    }
      ? Per
      : never;
  }[SourceName];
};
/** The unit kind whose IDs the listing `Name` discovers: the `per` of the rows it is `listedBy`. */
export type ListsOf<Name extends SourceName> = ListsMap[Name];

/** For a source polled per ID: which unit kind, and the source whose listing says the IDs. */
export function listingOf(name: SourceName): { per: PerIdUnit; listedBy: SourceName } | undefined {
  const { per, listedBy } = LISTED[name];
  return per === undefined || listedBy === undefined ? undefined : { per, listedBy };
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
   * Requests of this poll that waited for the credential's burst limit to reset (docs/operations.md,
   * Behaviour): set by the unit around its source's poll, said on the landing page.
   */
  readonly burstWaits?: number;
  /**
   * Trouble in the data itself, for the landing page, where the unit is "up" all the same (failing
   * schedules, a scan stopped at its cap): a few short texts of a fixed vocabulary, which may name a
   * field of Upstash's schema or an ID other pages show, never an upstream value that could hold a
   * secret or personal data (a URL, an e-mail, a body). The poller adds its own (rejected fields, cut
   * label values) and bounds them all ({@link MAX_WARNINGS}, {@link MAX_WARNING_LENGTH}).
   */
  readonly warnings?: readonly string[];
  /**
   * Lines the poller logs with the unit's labels on every poll that returns them, where once is not
   * enough (an event dated ahead, refused: docs/operations.md, Logs).
   */
  readonly logs?: readonly PollLog[];
  /**
   * Counts whose rise from one poll to the next is trouble (a DLQ's messages), by a fixed name
   * (`dead-letter messages`): the poller compares each with the last poll's and warns of a rise.
   */
  readonly watched?: Readonly<Record<string, number>>;
  /**
   * What the poll learnt for other units (a listing's IDs): the poller runs it after it has
   * recorded this poll's success, and only if the unit is still the one configured (a poll that a
   * reload or a removal overtook carries the old configuration: its news is dropped).
   */
  readonly onRecorded?: () => void;
}

/**
 * A line of a poll's own ({@link PollResult.logs}): a fixed message and a count, never an upstream
 * value (an event's content can hold a URL, a body or an e-mail).
 */
export interface PollLog {
  readonly level: 'info' | 'warn';
  readonly msg: string;
  /** How many of what the message speaks of. */
  readonly count: number;
  /**
   * The rejected field ({@link PollResult.rejectedFields}) the line speaks of: said at every poll by
   * this line, it is not also logged once as a field of the wrong type.
   */
  readonly field?: string;
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
   * The unit's name as its listing says it (a database's `database_name`, a QStash instance's
   * region), for the landing page; the ID stays the unit's identity.
   */
  readonly name?: string;
  /** For a listing: the kind of unit whose IDs it discovers (the landing page says what it holds). */
  readonly lists?: PerIdUnit;
  /**
   * Polled only for what its poll does on the side (a listing another shard exports, polled here to
   * learn this shard's units): no series, no health metrics, not on the landing page; failures logged.
   */
  readonly silent?: boolean;
  poll(context: PollContext): Promise<PollResult>;
}

/**
 * What the landing page shows of a unit: a plain serialisable object (strings, numbers, booleans),
 * computed by the poller, so that it can cross a thread boundary as it is.
 */
export interface UnitStatus {
  /** The unit's ID ({@link PollUnit.id}): what a restarted poll worker continues from. */
  readonly id: string;
  readonly labels: UnitLabels;
  /** The unit's name from its listing; '' when it has none (an account-wide unit, a configured ID). */
  readonly name: string;
  /** For a listing: the kind of unit it discovers; '' for any other unit. */
  readonly lists: PerIdUnit | '';
  /** `ok`, a failure reason, or `pending` before the first poll ends. */
  readonly outcome: string;
  /**
   * The last failure in words safe to show: its reason and the HTTP status when there was one
   * (`unauthorized (HTTP 401)`); never a URL, a header or body text. '' after a success.
   */
  readonly error: string;
  /** Unix ms. */
  readonly lastPollAt: number | undefined;
  /** Unix ms. */
  readonly lastSuccessAt: number | undefined;
  /** How long the last finished poll took, retries included (ms). */
  readonly lastDurationMs: number | undefined;
  readonly intervalMs: number;
  /** Unix ms of the unit's next scheduled poll (its slot in the interval for a family member). */
  readonly nextPollAt: number;
  /** Unix ms before which Upstash asked us not to poll (Retry-After); 0 when it did not. */
  readonly notBefore: number;
  /** A poll is in flight. */
  readonly running: boolean;
  /** It succeeded once, but its series were dropped for staleness. */
  readonly stale: boolean;
  /**
   * Trouble in what the last successful poll brought ({@link PollResult.warnings}, rejected fields,
   * cut label values, a watched count that rose), bounded; kept while its series are.
   */
  readonly warnings: readonly string[];
}

/** Warnings a unit shows at most: the rest are summed up in the last one. */
export const MAX_WARNINGS = 5;
/** Characters a warning has at most (code points): longer ones are cut with an ellipsis. */
export const MAX_WARNING_LENGTH = 160;

/** A cap of the config's `limits`: its key in the file, its default and its bounds (inclusive). */
export interface LimitRow {
  readonly file: string;
  readonly default: number;
  readonly min: number;
  /** Unbounded above when absent. */
  readonly max?: number;
  /** A duration: held in ms, written in the file as `30s`, `5m` or `1h` (`0s` allowed). */
  readonly duration?: true;
}

/**
 * The one table of the config's `limits`, caps on what a source exports or reads per account: the
 * file's schema, the resolved configuration, its type and the `--check-config` summary are derived
 * from it (config/file-schema.ts, resolve.ts, types.ts, summary.ts). A new limit is one row.
 */
export const LIMITS = {
  maxFlowControlKeys: { file: 'max_flow_control_keys', default: 1000, min: 1 },
  maxUrlGroups: { file: 'max_url_groups', default: 1000, min: 1 },
  maxCommandsPerDatabase: { file: 'max_commands_per_database', default: 100, min: 1 },
  maxQueues: { file: 'max_queues', default: 1000, min: 1 },
  maxSchedules: { file: 'max_schedules', default: 1000, min: 1 },
  /** Vector indexes, and Search indexes, polled per account (the first by name). */
  maxIndexes: { file: 'max_indexes', default: 1000, min: 1 },
  /** Pages of 100 messages read per poll of a dead-letter queue (`dlq`, `workflow_dlq`). */
  maxDlqPages: { file: 'max_dlq_pages', default: 10, min: 1, max: 100 },
  /** Teams whose members `teams` reads per account (the first by name). */
  maxTeams: { file: 'max_teams', default: 50, min: 1, max: 1000 },
  /** Pages read per poll of each (source, state) of an event source (docs/metrics.md, Event counters). */
  maxEventPages: { file: 'max_event_pages', default: 10, min: 1, max: 100 },
  /** Label sets per metric and entry of an event source, the all-`other` set not included. */
  maxEventSeries: { file: 'max_event_series', default: 500, min: 1, max: 10_000 },
  /**
   * How far below W each poll of an event source reads again, for events that became visible late
   * (ms; docs/metrics.md, Event counters).
   */
  eventSettle: { file: 'event_settle', default: 30_000, min: 0, max: 600_000, duration: true },
} as const satisfies Record<string, LimitRow>;

/** Caps on the series a source exports per account (the config's `limits`), by name. */
export type Limits = { readonly [Name in keyof typeof LIMITS]: number };

/** A limit's key in the configuration file. */
export type LimitFileKey = (typeof LIMITS)[keyof typeof LIMITS]['file'];

/** Which of `total` processes sharing one configuration this is (0-based `shard`). */
export interface Sharding {
  readonly shard: number;
  readonly total: number;
}
