import type { DataMetric } from '../metrics/catalogue.js';
import { SOURCES } from '../source-registry.js';
import type { SourceName } from '../vocabulary.js';
import { auditLogs } from './audit-logs.js';
import { databases } from './databases.js';
import { dlq, workflowDlq } from './dlq.js';
import { flowControl } from './flow-control.js';
import { globalParallelism } from './global-parallelism.js';
import { searchIndexes, vectorIndexes } from './index-listing.js';
import { searchStats, vectorStats } from './index-stats.js';
import { qstashEgressIps } from './qstash-egress-ips.js';
import { qstashDeliveries } from './qstash-deliveries.js';
import { qstashLogs } from './qstash-logs.js';
import { qstashStats } from './qstash-stats.js';
import { qstashUsers } from './qstash-users.js';
import { queues } from './queues.js';
import { redisBackups } from './redis-backups.js';
import { redisStats } from './redis-stats.js';
import { schedules } from './schedules.js';
import type { SourceKind } from './source.js';
import { teams } from './teams.js';
import { urlGroups } from './url-groups.js';
import { workflowRuns } from './workflow-runs.js';

/** The kind of every source, by name: a source without one, or with another's, does not compile. */
const KINDS = {
  flow_control: flowControl,
  url_groups: urlGroups,
  databases,
  redis_stats: redisStats,
  redis_backups: redisBackups,
  queues,
  schedules,
  global_parallelism: globalParallelism,
  qstash_users: qstashUsers,
  qstash_stats: qstashStats,
  vector_indexes: vectorIndexes,
  vector_stats: vectorStats,
  search_indexes: searchIndexes,
  search_stats: searchStats,
  dlq,
  workflow_dlq: workflowDlq,
  qstash_logs: qstashLogs,
  qstash_deliveries: qstashDeliveries,
  workflow_runs: workflowRuns,
  audit_logs: auditLogs,
  teams,
  qstash_egress_ips: qstashEgressIps,
} as const satisfies { readonly [Name in SourceName]: SourceKind<Name> };

/** Every kind of source, in the order of the table of sources, which is the order their families are exposed. */
export const SOURCE_KINDS: readonly SourceKind[] = (Object.keys(SOURCES) as SourceName[]).map(
  (name) => KINDS[name],
);

/** The kind of source called `name`. */
export function sourceKind(name: SourceName): SourceKind {
  return KINDS[name];
}

/**
 * Every data family of every source, in exposition order, each once: sources may share a family (the
 * QStash log's scan series, of `qstash_logs` and `qstash_deliveries`), which has one HELP and TYPE.
 */
export const DATA_METRICS: readonly DataMetric[] = [...new Set(SOURCE_KINDS.flatMap((kind) => kind.metrics))];
