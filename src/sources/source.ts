import type { DataMetric } from '../metrics/catalogue.js';
import type { Sample } from '../metrics/sample.js';
import type { Credentials, UpstashClient } from '../upstash/client.js';

/** An account as the sources see it: where its API is and who we are to it. */
export interface SourceAccount {
  /** The configured name: the `account` label. */
  readonly name: string;
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly credentials: Credentials;
}

/** Caps on the series a source exports per account (the config's `limits`). */
export interface SourceLimits {
  readonly maxFlowControlKeys: number;
  readonly maxUrlGroups: number;
  readonly maxCommandsPerDatabase: number;
  readonly maxQueues: number;
  readonly maxSchedules: number;
  readonly maxIndexes: number;
}

/**
 * Which of a listing's databases an entry polls: its explicit `databases` list, or the names its
 * `include`/`exclude` regexes (anchored at both ends) let through.
 */
export interface DatabaseSelection {
  /** The configured IDs; when set, exactly these are polled and the regexes are empty. */
  readonly ids: readonly string[] | undefined;
  readonly include: readonly RegExp[];
  readonly exclude: readonly RegExp[];
}

/** Everything one poll of one unit may use. */
export interface PollRequest {
  readonly client: UpstashClient;
  readonly account: SourceAccount;
  /** The unit polled: '' for a source polled once per account, else its ID (a database ID). */
  readonly unit: string;
  readonly limits: SourceLimits;
  /** The databases the entry polls (listing sources only need it); every one when absent. */
  readonly databases?: DatabaseSelection;
  /** Aborts the poll (shutdown, or the unit went away). */
  readonly signal: AbortSignal;
  /** Unix ms by which the poll should be over: the unit's next tick. */
  readonly deadline: number;
}

/**
 * What one unit of a source is, and which health label names it: a source is polled once per
 * account, once per database of the account, once per QStash instance of the account, or once per
 * Vector or Search index of the account.
 */
export const UNIT_KINDS = {
  account: undefined,
  database: 'database_id',
  qstash_instance: 'qstash_id',
  vector_index: 'index_id',
  search_index: 'index_id',
} as const;
export type UnitKind = keyof typeof UNIT_KINDS;

/** What one poll of a source brought. */
export interface SourceResult {
  readonly samples: Sample[];
  /** Upstream fields skipped alone for their wrong type (stats tolerance); Upstash's names. */
  readonly rejectedFields?: readonly string[];
  /**
   * A listing's news (`databases`, `qstash_users`): the IDs the account has now, for the sources
   * polled per such unit. Only a successful listing says it; while it fails, the last set stays.
   */
  readonly discovered?: { readonly unit: Exclude<UnitKind, 'account'>; readonly ids: readonly string[] };
}

/**
 * One Upstash source: what it polls (an endpoint module of src/upstash), per which unit, and how the
 * answer becomes samples. The poller times, counts and schedules it; nothing else knows its details.
 */
export interface SourceKind<Name extends string = string> {
  /** The `source` label, and the name under `sources:` in the config. */
  readonly name: Name;
  /** Whose credentials it polls with. */
  readonly api: Credentials['api'];
  readonly per: UnitKind;
  /** For a listing: the unit kind whose IDs it discovers (its result's `discovered`). */
  readonly lists?: Exclude<UnitKind, 'account'>;
  /** Every family it may fill, in exposition order. */
  readonly metrics: readonly DataMetric[];
  poll(request: PollRequest): Promise<SourceResult>;
}

/** The `# HELP` phrase of QStash data series: when they were read. */
export const POLLED_QSTASH = 'Polled every interval from QStash, not at scrape time.';
/** The `# HELP` phrase of plain numbers from the management API. */
export const POLLED_MANAGEMENT = 'Polled every interval from the Upstash management API, not at scrape time.';
/** The `# HELP` phrase of the latest point of a management API series. */
export const POLLED_STATS =
  'Latest point, polled every interval from the Upstash management API, not at scrape time.';
