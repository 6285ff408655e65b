import { SOURCES } from '../source-registry.js';
import type { SourceName } from '../vocabulary.js';
import { auditLogsEndpoint } from './audit-logs.js';
import { databasesEndpoint } from './databases.js';
import { dlqEndpoint, workflowDlqEndpoint } from './dlq.js';
import type { RouteSpec } from './endpoint.js';
import { flowControlEndpoint } from './flow-control.js';
import { globalParallelismEndpoint } from './global-parallelism.js';
import { searchIndexesEndpoint, vectorIndexesEndpoint } from './index-listings.js';
import { searchStatsEndpoint, vectorStatsEndpoint } from './index-stats.js';
import { qstashEgressEndpoint } from './qstash-egress.js';
import { qstashEventsEndpoint, qstashLogsEndpoint } from './qstash-logs.js';
import { qstashStatsEndpoint } from './qstash-stats.js';
import { qstashUsersEndpoint } from './qstash-users.js';
import { queuesEndpoint } from './queues.js';
import { redisBackupsEndpoint } from './redis-backups.js';
import { redisStatsEndpoint } from './redis-stats.js';
import { schedulesEndpoint } from './schedules.js';
import { teamMembersEndpoint, teamsEndpoint } from './teams.js';
import { urlGroupsEndpoint } from './url-groups.js';
import { workflowEventsEndpoint, workflowLogsEndpoint } from './workflow-runs.js';

/**
 * The simulated endpoints each source reads, by source: a source without its row does not compile.
 * Adding an endpoint: its module and its place in its source's row. Its body is a `OneBody`
 * (`bodies.ts`); a listing's is a `listingBody` over its registry (`registries.ts`), and the endpoint
 * of each listed item (`path: '/v2/…/{id}'`) a `PerIdBodies` over the same registry, so both agree on
 * who exists when.
 */
const SIMULATED = {
  flow_control: [flowControlEndpoint],
  url_groups: [urlGroupsEndpoint],
  databases: [databasesEndpoint],
  redis_stats: [redisStatsEndpoint],
  redis_backups: [redisBackupsEndpoint],
  queues: [queuesEndpoint],
  schedules: [schedulesEndpoint],
  global_parallelism: [globalParallelismEndpoint],
  qstash_users: [qstashUsersEndpoint],
  qstash_stats: [qstashStatsEndpoint],
  vector_indexes: [vectorIndexesEndpoint],
  vector_stats: [vectorStatsEndpoint],
  search_indexes: [searchIndexesEndpoint],
  search_stats: [searchStatsEndpoint],
  dlq: [dlqEndpoint],
  workflow_dlq: [workflowDlqEndpoint],
  qstash_logs: [qstashLogsEndpoint, qstashEventsEndpoint],
  qstash_deliveries: [qstashLogsEndpoint, qstashEventsEndpoint],
  workflow_runs: [workflowLogsEndpoint, workflowEventsEndpoint],
  audit_logs: [auditLogsEndpoint],
  teams: [teamsEndpoint, teamMembersEndpoint],
  qstash_egress_ips: [qstashEgressEndpoint],
} as const satisfies Readonly<Record<SourceName, readonly RouteSpec<string>[]>>;

/** Every simulated endpoint. */
type Spec = (typeof SIMULATED)[SourceName][number];

/**
 * Every simulated endpoint, once, in the order of the table of sources. A path is matched against them
 * in this order, and no path matches two of them (test/demo/routes.test.ts), so no row can shadow a route.
 */
export const ENDPOINTS: readonly Spec[] = [
  ...new Set((Object.keys(SOURCES) as SourceName[]).flatMap((name): readonly Spec[] => SIMULATED[name])),
];

/** The Upstash operations the simulator serves. */
export type Route = Spec['name'];

/** Every route, in a fixed order. */
export const ROUTES: readonly Route[] = ENDPOINTS.map((e) => e.name);

/** Each route's endpoint instance by route name, typed, so the simulator can reach its controls. */
export type Endpoints = { [E in Spec as E['name']]: ReturnType<E['create']> };
