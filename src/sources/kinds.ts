import type { DataMetric } from '../metrics/catalogue.js';
import type { SourceName } from '../vocabulary.js';
import { auditLogs } from './audit-logs.js';
import { databases } from './databases.js';
import { dlq, workflowDlq } from './dlq.js';
import { flowControl } from './flow-control.js';
import { globalParallelism } from './global-parallelism.js';
import { searchIndexes, vectorIndexes } from './index-listing.js';
import { searchStats, vectorStats } from './index-stats.js';
import { qstashEgressIps } from './qstash-egress-ips.js';
import { qstashLogs } from './qstash-logs.js';
import { qstashStats } from './qstash-stats.js';
import { qstashUsers } from './qstash-users.js';
import { queues } from './queues.js';
import { redisBackups } from './redis-backups.js';
import { redisStats } from './redis-stats.js';
import { schedules } from './schedules.js';
import { teams } from './teams.js';
import type { SourceKind } from './source.js';
import { urlGroups } from './url-groups.js';
import { workflowRuns } from './workflow-runs.js';

/**
 * Every kind of source, in the order their families are exposed. Adding a source: one line here,
 * and its name in SOURCE_NAMES (src/vocabulary.ts), under the API whose entries list it.
 */
export const SOURCE_KINDS = [
  flowControl,
  urlGroups,
  databases,
  redisStats,
  redisBackups,
  queues,
  schedules,
  globalParallelism,
  qstashUsers,
  qstashStats,
  vectorIndexes,
  vectorStats,
  searchIndexes,
  searchStats,
  dlq,
  workflowDlq,
  qstashLogs,
  workflowRuns,
  auditLogs,
  teams,
  qstashEgressIps,
] as const;

/**
 * Type-checks only while every name of SOURCE_NAMES has its source kind above: a name the config
 * accepts that nothing polls would be silently unconfigurable. (A kind whose name is not in
 * SOURCE_NAMES fails SourceKind's own type.)
 */
export type EveryNamePolled = NeverOr<Exclude<SourceName, (typeof SOURCE_KINDS)[number]['name']>>;
type NeverOr<Unpolled extends never> = Unpolled;

/** The kind of source called `name`. */
export function sourceKind(name: SourceName): SourceKind {
  const kind = SOURCE_KINDS.find((candidate) => candidate.name === name);
  if (kind === undefined) throw new Error(`unknown source ${name}`);
  return kind;
}

/** Every data family of every source, in exposition order. */
export const DATA_METRICS: readonly DataMetric[] = SOURCE_KINDS.flatMap((kind) => kind.metrics);
