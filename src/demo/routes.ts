import { auditLogsEndpoint } from './audit-logs.js';
import { databasesEndpoint } from './databases.js';
import { dlqEndpoint, workflowDlqEndpoint } from './dlq.js';
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
 * Every simulated endpoint, in the order paths are matched. Adding an endpoint: its module and a line
 * here. Its body is a `OneBody` (`bodies.ts`); a listing's is a `listingBody` over its registry
 * (`registries.ts`), and the endpoint of each listed item (`matchPath('/v2/…/{id}')`) a `PerIdBodies` over
 * the same registry, so both agree on who exists when.
 */
export const ENDPOINTS = [
  flowControlEndpoint,
  urlGroupsEndpoint,
  redisStatsEndpoint,
  databasesEndpoint,
  queuesEndpoint,
  schedulesEndpoint,
  globalParallelismEndpoint,
  qstashUsersEndpoint,
  qstashStatsEndpoint,
  redisBackupsEndpoint,
  vectorIndexesEndpoint,
  vectorStatsEndpoint,
  searchIndexesEndpoint,
  searchStatsEndpoint,
  dlqEndpoint,
  workflowDlqEndpoint,
  auditLogsEndpoint,
  teamsEndpoint,
  teamMembersEndpoint,
  qstashEgressEndpoint,
  qstashLogsEndpoint,
  qstashEventsEndpoint,
  workflowLogsEndpoint,
  workflowEventsEndpoint,
] as const;

/** The Upstash operations the simulator serves. */
export type Route = (typeof ENDPOINTS)[number]['name'];

/** Every route, in a fixed order. */
export const ROUTES: readonly Route[] = ENDPOINTS.map((e) => e.name);

/** Each route's endpoint instance by route name, typed, so the simulator can reach its controls. */
export type Endpoints = { [E in (typeof ENDPOINTS)[number] as E['name']]: ReturnType<E['create']> };
