import type { Api } from './upstash/client.js';

// Which sources exist, as plain data at the bottom of the program: the config's source lists and own
// schedules derive from it (vocabulary.ts), and the poll worker's kinds (sources/kinds.ts) and the
// simulator's endpoints (demo/routes.ts) are static maps keyed by its names, so a name without a kind
// or an endpoint does not compile (docs/architecture.md, "Adding a source / an event source / a
// route / a limit / a flag").

/**
 * A source's row: the API whose credentials poll it, its own schedule if it has one, and for a source
 * polled per ID, which unit kind and which listing discovers the IDs.
 */
export type SourceRow = RowBase & (PerAccount | PerId);

interface RowBase {
  readonly api: Api;
  /**
   * An own schedule of its API rather than every interval (the entry's `<schedule>_interval`,
   * defaulting to DEFAULTS.ownIntervals): for a source too costly to poll every interval.
   */
  readonly schedule?: string;
  /**
   * Not among an entry's sources unless listed: a source whose cost grows with the account's traffic,
   * or whose endpoint Upstash may retire (docs/configuration.md, Sources polled only when listed).
   */
  readonly optIn?: true;
}

/** Polled once per account. */
interface PerAccount {
  readonly per?: undefined;
  readonly listedBy?: undefined;
}

/**
 * Polled once per ID of a unit kind (`UNIT_KINDS` of vocabulary.ts, where the names are checked), the
 * IDs said by the listing of source `listedBy`: an entry that polls this source without its listing
 * (or, for databases, without their IDs) is refused (docs/configuration.md, "Rules of the file").
 */
interface PerId {
  readonly per: string;
  readonly listedBy: string;
}

/** Every source, in the order their families are exposed. */
export const SOURCES = {
  flow_control: { api: 'qstash' },
  url_groups: { api: 'qstash' },
  databases: { api: 'management' },
  redis_stats: { api: 'management', per: 'database', listedBy: 'databases' },
  redis_backups: { api: 'management', schedule: 'backups', per: 'database', listedBy: 'databases' },
  queues: { api: 'qstash' },
  schedules: { api: 'qstash' },
  global_parallelism: { api: 'qstash' },
  qstash_users: { api: 'management' },
  qstash_stats: { api: 'management', per: 'qstash_instance', listedBy: 'qstash_users' },
  vector_indexes: { api: 'management' },
  vector_stats: { api: 'management', per: 'vector_index', listedBy: 'vector_indexes' },
  search_indexes: { api: 'management' },
  search_stats: { api: 'management', per: 'search_index', listedBy: 'search_indexes' },
  dlq: { api: 'qstash', schedule: 'dlq' },
  workflow_dlq: { api: 'qstash', schedule: 'dlq' },
  qstash_logs: { api: 'qstash', schedule: 'events' },
  qstash_deliveries: { api: 'qstash', schedule: 'events', optIn: true },
  workflow_runs: { api: 'qstash', schedule: 'events' },
  // The account's safety: the audit log, team roles and QStash's outgoing addresses change rarely,
  // and the audit log is one body that can hold a year of events (docs/metrics.md, "The account's safety").
  audit_logs: { api: 'management', schedule: 'audit' },
  teams: { api: 'management', schedule: 'audit', optIn: true },
  qstash_egress_ips: { api: 'management', schedule: 'audit' },
} as const satisfies Record<string, SourceRow>;
