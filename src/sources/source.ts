import type { DataMetric } from '../metrics/catalogue.js';
import { SOURCES, type SourceRow } from '../source-registry.js';
import type { Api, Credentials, UpstashClient } from '../upstash/client.js';
import type { EventEntry } from './event-store.js';
import type { Limits, ListsOf, PerIdUnit, PerOf, PollResult, SourceName } from '../vocabulary.js';

/** An account as the sources see it: where its API is and who we are to it. */
export interface SourceAccount {
  /** The configured name: the `account` label. */
  readonly name: string;
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly credentials: Credentials;
  /** A qstash entry's `workflow_lookback` (ms): how far before W finished runs are asked for. */
  readonly workflowLookbackMs?: number;
  /** A qstash entry's `labels:`: the only label values its event sources read (none when absent). */
  readonly labels?: readonly string[];
  /** false: a qstash entry's `exemplars: false` (docs/metrics.md, Exemplars). */
  readonly exemplars?: boolean;
  /**
   * Hears each request of the poll that waited for the credential's burst limit: set per poll
   * (units.ts), it reaches the client through the `...account` every endpoint call spreads.
   */
  readonly onBurstWait?: () => void;
}

/**
 * Which of a listing's databases an entry polls: its explicit `databases` list, or the names its
 * `include`/`exclude` regexes (anchored at both ends) let through.
 */
export interface DatabaseSelection {
  /** The configured IDs; when set, exactly these are polled and the regexes are empty. */
  readonly ids: readonly string[] | undefined;
  readonly include: readonly { test(name: string): boolean }[];
  readonly exclude: readonly { test(name: string): boolean }[];
}

/** Everything one poll of one unit may use. */
export interface PollRequest {
  readonly client: UpstashClient;
  readonly account: SourceAccount;
  /** The unit polled: '' for a source polled once per account, else its ID (a database ID). */
  readonly unit: string;
  readonly limits: Limits;
  /** The databases the entry polls (listing sources only need it); every one when absent. */
  readonly databases?: DatabaseSelection;
  /** Aborts the poll (shutdown, or the unit went away). */
  readonly signal: AbortSignal;
  /** Unix ms by which the poll should be over: the unit's next tick. */
  readonly deadline: number;
  /** The entry's event state (watermarks, counters, paths), kept across polls and reloads. */
  readonly events: EventEntry;
  /**
   * For a per-ID unit its listing discovered: the limits the listing last stated for its ID, by
   * Upstash's name (a Search index's `max_monthly_reranks`), to compare its usage with.
   */
  readonly listedLimits?: ListedLimits;
}

/** An ID's limits as its listing states them, by Upstash's field name. */
export type ListedLimits = Readonly<Partial<Record<string, number>>>;

/** What one poll of a source brought: samples and rejected fields, and a listing's news. */
export interface SourceResult extends Omit<PollResult, 'onRecorded'> {
  /**
   * A listing's news (`databases`, `qstash_users`): the IDs the account has now, for the sources
   * polled per such unit. Only a successful listing says it; while it fails, the last set stays.
   */
  readonly discovered?: Listed & { readonly unit: PerIdUnit };
}

/** What a listing says of its units: their IDs, and the name of each ID that has one. */
export interface Listed {
  readonly ids: readonly string[];
  /** By ID: shown beside it on the landing page (a database's name), never used to poll. */
  readonly names: ReadonlyMap<string, string>;
  /** By ID: the limits the listing states, handed to the ID's own poll ({@link PollRequest.listedLimits}). */
  readonly limits?: ReadonlyMap<string, ListedLimits>;
}

/**
 * One Upstash source: what it polls (an endpoint module of src/upstash), per which unit, and how the
 * answer becomes samples. The poller times, counts and schedules it; nothing else knows its details.
 */
export interface SourceKind<Name extends SourceName = SourceName> {
  /** The `source` label, and the name under `sources:` in the config: its row in src/source-registry.ts. */
  readonly name: Name;
  /** What one unit is: the `per` of its row (once per account without one). */
  readonly per: PerOf<Name>;
  /** For a listing: the unit kind whose IDs it discovers (its result's `discovered`), as the rows say. */
  readonly lists?: ListsOf<Name>;
  /** Every family it may fill, in exposition order. */
  readonly metrics: readonly DataMetric[];
  poll(request: PollRequest): Promise<SourceResult>;
}

/** How a `# HELP` sentence names each API. */
const API_WORDS: Record<Api, string> = { qstash: 'QStash', management: 'the Upstash management API' };

/** The lead of the `# HELP` sentence of the latest point of a management API series. */
export const LATEST_POINT = 'Latest point, polled';

/**
 * The `# HELP` sentence that says when a source's series were read, from its row in the table of
 * sources (its API and schedule): `Polled every dlq_interval from QStash, not at scrape time.`
 */
export function polled(name: SourceName, lead = 'Polled'): string {
  const row: SourceRow = SOURCES[name];
  const every = row.schedule === undefined ? 'interval' : `${row.schedule}_interval`;
  return `${lead} every ${every} from ${API_WORDS[row.api]}, not at scrape time.`;
}

/** A count and its noun, for a poll's warnings: `1 event`, `3 events`. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * A list of IDs for a poll's warnings (PollResult.warnings), the first `max` of them and how many more: `a, b, c and 4 more`.
 * Each ID is cut to 40 characters (an ID from upstream can be of any length).
 */
export function someIds(ids: readonly string[], max = 3): string {
  const shown = ids.slice(0, max).map((id) => {
    const points = Array.from(id);
    return points.length <= 40 ? id : `${points.slice(0, 39).join('')}…`;
  });
  return ids.length > max ? `${shown.join(', ')} and ${ids.length - max} more` : shown.join(', ');
}
