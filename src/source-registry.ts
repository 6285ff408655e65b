// The one registry of sources: one row per source, in the order their families are exposed. A new
// source is its own three files (src/upstash/, src/sources/, src/demo/) and one row here; everything
// else is derived from this table: the names the config accepts per API and the own schedules
// (vocabulary.ts), the source kinds the poll worker runs (sources/kinds.ts), the routes the simulator
// serves (demo/routes.ts).
//
// Each row points at its modules through functions that import them, and nothing here calls them (so
// the modules it names, which import the vocabulary that reads this table, make no cycle at load):
// the serving thread reads this table for the names (the config needs them at start-up and on every
// reload) without loading a source, undici or a response schema (test/polling/serving-modules.test.ts,
// test/e2e/serving-thread.test.ts), and production never loads src/demo/ (only the simulator calls
// `simulator`). The poll worker loads every `kind` once as it starts (sources/kinds.ts), the simulator
// every `simulator` (demo/routes.ts); the compiler checks that each row's kind carries the row's name
// (sources/kinds.ts, EveryRowItsKind). A kind does not repeat its row's API: the row is where it is said.
//
// A row: `api`, whose credentials poll it (the config entries that list it); `schedule`, when it runs on
// an own schedule of its API rather than every interval (the entry's `<schedule>_interval`, whose default
// is in DEFAULTS.ownIntervals); `kind`, its SourceKind; `simulator`, the simulated endpoints it reads
// (a module may serve two sources, each row picking its own).

/** Every source: its API, its own schedule if any, and how to load its kind and its simulated endpoints. */
export const SOURCES = {
  flow_control: {
    api: 'qstash',
    kind: () => import('./sources/flow-control.js').then((m) => m.flowControl),
    simulator: () => import('./demo/flow-control.js').then((m) => [m.flowControlEndpoint]),
  },
  url_groups: {
    api: 'qstash',
    kind: () => import('./sources/url-groups.js').then((m) => m.urlGroups),
    simulator: () => import('./demo/url-groups.js').then((m) => [m.urlGroupsEndpoint]),
  },
  databases: {
    api: 'management',
    kind: () => import('./sources/databases.js').then((m) => m.databases),
    simulator: () => import('./demo/databases.js').then((m) => [m.databasesEndpoint]),
  },
  redis_stats: {
    api: 'management',
    kind: () => import('./sources/redis-stats.js').then((m) => m.redisStats),
    simulator: () => import('./demo/redis-stats.js').then((m) => [m.redisStatsEndpoint]),
  },
  redis_backups: {
    api: 'management',
    schedule: 'backups',
    kind: () => import('./sources/redis-backups.js').then((m) => m.redisBackups),
    simulator: () => import('./demo/redis-backups.js').then((m) => [m.redisBackupsEndpoint]),
  },
  queues: {
    api: 'qstash',
    kind: () => import('./sources/queues.js').then((m) => m.queues),
    simulator: () => import('./demo/queues.js').then((m) => [m.queuesEndpoint]),
  },
  schedules: {
    api: 'qstash',
    kind: () => import('./sources/schedules.js').then((m) => m.schedules),
    simulator: () => import('./demo/schedules.js').then((m) => [m.schedulesEndpoint]),
  },
  global_parallelism: {
    api: 'qstash',
    kind: () => import('./sources/global-parallelism.js').then((m) => m.globalParallelism),
    simulator: () => import('./demo/global-parallelism.js').then((m) => [m.globalParallelismEndpoint]),
  },
  qstash_users: {
    api: 'management',
    kind: () => import('./sources/qstash-users.js').then((m) => m.qstashUsers),
    simulator: () => import('./demo/qstash-users.js').then((m) => [m.qstashUsersEndpoint]),
  },
  qstash_stats: {
    api: 'management',
    kind: () => import('./sources/qstash-stats.js').then((m) => m.qstashStats),
    simulator: () => import('./demo/qstash-stats.js').then((m) => [m.qstashStatsEndpoint]),
  },
  vector_indexes: {
    api: 'management',
    kind: () => import('./sources/index-listing.js').then((m) => m.vectorIndexes),
    simulator: () => import('./demo/index-listings.js').then((m) => [m.vectorIndexesEndpoint]),
  },
  vector_stats: {
    api: 'management',
    kind: () => import('./sources/index-stats.js').then((m) => m.vectorStats),
    simulator: () => import('./demo/index-stats.js').then((m) => [m.vectorStatsEndpoint]),
  },
  search_indexes: {
    api: 'management',
    kind: () => import('./sources/index-listing.js').then((m) => m.searchIndexes),
    simulator: () => import('./demo/index-listings.js').then((m) => [m.searchIndexesEndpoint]),
  },
  search_stats: {
    api: 'management',
    kind: () => import('./sources/index-stats.js').then((m) => m.searchStats),
    simulator: () => import('./demo/index-stats.js').then((m) => [m.searchStatsEndpoint]),
  },
  dlq: {
    api: 'qstash',
    schedule: 'dlq',
    kind: () => import('./sources/dlq.js').then((m) => m.dlq),
    simulator: () => import('./demo/dlq.js').then((m) => [m.dlqEndpoint]),
  },
  workflow_dlq: {
    api: 'qstash',
    schedule: 'dlq',
    kind: () => import('./sources/dlq.js').then((m) => m.workflowDlq),
    simulator: () => import('./demo/dlq.js').then((m) => [m.workflowDlqEndpoint]),
  },
  qstash_logs: {
    api: 'qstash',
    schedule: 'events',
    kind: () => import('./sources/qstash-logs.js').then((m) => m.qstashLogs),
    simulator: () =>
      import('./demo/qstash-logs.js').then((m) => [m.qstashLogsEndpoint, m.qstashEventsEndpoint]),
  },
  workflow_runs: {
    api: 'qstash',
    schedule: 'events',
    kind: () => import('./sources/workflow-runs.js').then((m) => m.workflowRuns),
    simulator: () =>
      import('./demo/workflow-runs.js').then((m) => [m.workflowLogsEndpoint, m.workflowEventsEndpoint]),
  },
  // The account's safety (contract 10.4): the audit log, team roles and QStash's outgoing addresses
  // change rarely, and the audit log is one body that can hold a year of events.
  audit_logs: {
    api: 'management',
    schedule: 'audit',
    kind: () => import('./sources/audit-logs.js').then((m) => m.auditLogs),
    simulator: () => import('./demo/audit-logs.js').then((m) => [m.auditLogsEndpoint]),
  },
  teams: {
    api: 'management',
    schedule: 'audit',
    kind: () => import('./sources/teams.js').then((m) => m.teams),
    simulator: () => import('./demo/teams.js').then((m) => [m.teamsEndpoint, m.teamMembersEndpoint]),
  },
  qstash_egress_ips: {
    api: 'management',
    schedule: 'audit',
    kind: () => import('./sources/qstash-egress-ips.js').then((m) => m.qstashEgressIps),
    simulator: () => import('./demo/qstash-egress.js').then((m) => [m.qstashEgressEndpoint]),
  },
} as const;
