import type { FamilySelection } from '../metrics/family-filter.js';
import { SOURCES, type SourceRow } from '../source-registry.js';
import {
  LIMITS,
  SOURCE_NAMES,
  type Limits,
  type OwnSchedule,
  type PerOwnSchedule,
  type Sharding,
  type SourceName,
} from '../vocabulary.js';
import type { Secret } from './secret.js';
import type { Schedule } from './schedule.js';

export type { FamilySelection, Limits, Sharding };

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one object per line, for machines; `text`: one readable line per event, for terminals. */
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Of `names`, those an entry polls when it lists none: every one whose row is not `optIn`. */
function byDefault<Name extends SourceName>(names: readonly Name[]): readonly Name[] {
  return names.filter((name) => (SOURCES[name] as SourceRow).optIn !== true);
}

/** The QStash sources a `qstash` entry may list. */
export const QSTASH_SOURCES = SOURCE_NAMES.qstash;
/** The QStash sources of an entry that lists none: all but the opt-in ones (their row says `optIn`). */
export const QSTASH_DEFAULT_SOURCES = byDefault(QSTASH_SOURCES);
export type QstashSourceName = SourceName<'qstash'>;

/** One QStash token: the QStash sources of one account (tokens are per region). */
export interface QstashAccount {
  readonly name: string;
  /** Base URL without a trailing slash. */
  readonly url: string;
  readonly token: Secret;
  readonly schedule: Schedule;
  readonly sources: readonly QstashSourceName[];
  /**
   * When the sources on a schedule of their own run (`dlq_interval`: `dlq`, `workflow_dlq`;
   * `events_interval`: `qstash_logs`, `workflow_runs`).
   */
  readonly ownSchedules: PerOwnSchedule<'qstash', Schedule>;
  /**
   * How far before W finished workflow runs are asked for (`workflow_lookback`, ms; docs/configuration.md,
   * Rules of the file).
   */
  readonly workflowLookbackMs: number;
  /**
   * The Upstash label values counted by (`labels:`; docs/configuration.md, Your own labels): only
   * these are ever read from an event. Empty: the `…_label_…` families are not exported.
   */
  readonly labels: readonly string[];
  /** Whether the OpenMetrics answer carries this entry's exemplars (`exemplars:`, default true). */
  readonly exemplars: boolean;
}

/** The management API sources a `management` entry may list. */
export const MANAGEMENT_SOURCES = SOURCE_NAMES.management;
/** The management API sources of an entry that lists none: all but the opt-in ones. */
export const MANAGEMENT_DEFAULT_SOURCES = byDefault(MANAGEMENT_SOURCES);
export type ManagementSourceName = SourceName<'management'>;

/**
 * One management API key: its Redis databases (listed, or discovered), their stats and backups, its
 * QStash instances and its Vector and Search indexes.
 */
export interface ManagementAccount {
  readonly name: string;
  /** Base URL without a trailing slash. */
  readonly url: string;
  readonly email: string;
  readonly apiKey: Secret;
  /** The database IDs to poll; undefined: every database the listing gives (discovery). */
  readonly databases: readonly string[] | undefined;
  /** Database names to keep when discovering (regexes, matched whole); empty: all. */
  readonly include: readonly string[];
  /** Database names to drop when discovering (regexes, matched whole). */
  readonly exclude: readonly string[];
  readonly schedule: Schedule;
  readonly sources: readonly ManagementSourceName[];
  /**
   * When the sources on a schedule of their own run (`backups_interval`: `redis_backups`;
   * `audit_interval`: `audit_logs`, `teams`, `qstash_egress_ips`).
   */
  readonly ownSchedules: PerOwnSchedule<'management', Schedule>;
}

/** How we call Upstash. */
export interface HttpSettings {
  readonly timeoutMs: number;
  readonly retries: number;
  readonly concurrency: number;
  /** A response body larger than this fails as `invalid_response`, unread. */
  readonly maxBodyBytes: number;
}

/** The validated configuration the whole program runs on. */
export interface Config {
  readonly listenAddress: string;
  /** Where the metrics are served (`--web.telemetry-path`, `/metrics` by default). */
  readonly telemetryPath: string;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  readonly sharding: Sharding;
  /** Absolute path of the exporter-toolkit web config, if any. */
  readonly webConfigFile: string | undefined;
  /** Whether `POST /-/reload` reloads the configuration (`--web.enable-lifecycle`). */
  readonly webEnableLifecycle: boolean;
  /** The metric families /metrics shows (`metrics.allow`, `metrics.deny`: regexes, matched whole). */
  readonly metrics: FamilySelection;
  readonly http: HttpSettings;
  readonly limits: Limits;
  readonly qstash: readonly QstashAccount[];
  readonly management: readonly ManagementAccount[];
  /** Where the configuration came from, for the summary: a file path or `environment`. */
  readonly origin: string;
}

export const DEFAULTS = {
  listenAddress: ':9645',
  telemetryPath: '/metrics',
  logLevel: 'info',
  logFormat: 'json',
  qstashUrl: 'https://qstash.upstash.io',
  managementUrl: 'https://api.upstash.com',
  qstashInterval: '30s',
  managementInterval: '60s',
  /**
   * Each own schedule's interval (`<name>_interval`): backups change daily at most; paging a DLQ
   * costs up to max_dlq_pages requests; the event sources one per state and page; the audit log, teams
   * and QStash's egress addresses change rarely, and the audit log is one large body
   * (docs/configuration.md, What each source costs).
   */
  ownIntervals: { backups: '1h', dlq: '5m', events: '1m', audit: '5m' } satisfies Record<OwnSchedule, string>,
  /** A qstash entry's `workflow_lookback`, and its bounds in ms. */
  workflowLookback: { defaultMs: 3_600_000, minMs: 60_000, maxMs: 7 * 86_400_000 },
  http: { timeoutMs: 10_000, retries: 2, concurrency: 4, maxBodyBytes: 8 * 1024 * 1024 },
  /** One process polls everything: shard 0 of 1 (docs/sharding.md). */
  sharding: { shard: 0, total: 1 },
  limits: Object.fromEntries(Object.entries(LIMITS).map(([name, limit]) => [name, limit.default])) as Limits,
  envAccount: 'default',
} as const;
