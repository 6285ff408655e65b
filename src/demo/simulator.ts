import type { IncomingHttpHeaders } from 'node:http';
import type { EndpointContext } from './endpoint.js';
import { FaultTable } from './faults.js';
import type { Fault } from './faults.js';
import { databasesByIds } from './fleet.js';
import type { DlqBehaviour } from './dlq.js';
import type { DemoAuditEvent } from './audit-logs.js';
import type { DemoTeam } from './team-roster.js';
import type { FlowControlEntry, FlowControlOptions } from './flow-control.js';
import type { GlobalParallelismBody } from './global-parallelism.js';
import type { DemoIndex, IndexProduct } from './indexes.js';
import type { DemoQstashInstance } from './qstash-instances.js';
import type { QueueEntry, QueuesOptions } from './queues.js';
import type { DemoBackup } from './redis-backups.js';
import { Opening } from './opening.js';
import { createRegistries } from './registries.js';
import type { RegistriesOptions } from './registries.js';
import type { RedisStatsOptions } from './redis-stats.js';
import type { ScheduleEntry, SchedulesOptions } from './schedules.js';
import { ENDPOINTS, ROUTES } from './routes.js';
import type { Endpoints, Route } from './routes.js';
import { SimulatorServer } from './server.js';
import type { UrlGroup, UrlGroupsOptions } from './url-groups.js';
import type { DemoRun, FromDateReading } from './workflow-runs.js';
import type { EventDating, TimeUnit } from './event-pages.js';

export { CHURN_PERIOD_MS } from './endpoint.js';
export type { Fault } from './faults.js';
export { DEMO_ODD_FLOW_CONTROL_KEY } from './flow-control.js';
export type { FlowControlEntry, FlowControlOptions } from './flow-control.js';
export { formatGoTime } from './go-time.js';
export {
  DEMO_CREATED_DATABASE,
  DEMO_DATABASES,
  DEMO_DELETED_DATABASE,
  DEMO_FREE_DATABASE,
  DEMO_SUSPENDED_DATABASE,
  FLEET_CHANGE_MS,
} from './fleet.js';
export { NO_LIMIT } from './databases.js';
export * from './account-safety.js';
export { AUDIT_STEP_MS } from './audit-logs.js';
export type { DemoAuditEvent } from './audit-logs.js';
export { DEMO_TEAMS, TEAM_CHANGE_MS } from './team-roster.js';
export type { DemoTeam } from './team-roster.js';
export { DEMO_EGRESS_RANGES, EGRESS_CHANGE_MS, demoEgressRanges } from './qstash-egress.js';
export { DEMO_STREAMING_DATABASES, STATS_STEP_MS } from './redis-stats.js';
export { DEMO_DLQ_CALLER_IP, DEMO_DLQ_SECRET } from './dlq.js';
export type { DlqBehaviour } from './dlq.js';
export { DEMO_DESTINATIONS, DEMO_EVENT_CALLER_IP, DEMO_EVENT_SECRET, DEMO_LABELS } from './qstash-logs.js';
export { DEMO_STUCK_WORKFLOW, DEMO_WORKFLOWS, STUCK_RUN_AGE_MS } from './workflow-runs.js';
export type { DemoRun, FromDateReading } from './workflow-runs.js';
export type { EventDating, TimeUnit } from './event-pages.js';
export { DEMO_GLOBAL_PARALLELISM_MAX } from './global-parallelism.js';
export type { GlobalParallelismBody } from './global-parallelism.js';
export { DEMO_QSTASH_INSTANCES } from './qstash-instances.js';
export type { DemoQstashInstance, QstashUsersOptions } from './qstash-instances.js';
export { demoInstanceToken } from './qstash-users.js';
export { DEMO_SEARCH_INDEXES, DEMO_VECTOR_INDEXES } from './indexes.js';
export type { DemoIndex, IndexProduct, IndexesOptions } from './indexes.js';
export { demoIndexToken } from './index-listings.js';
export { DEMO_FAILING_BACKUP_DATABASE, demoBackups } from './redis-backups.js';
export type { DemoBackup } from './redis-backups.js';
export { DEMO_BACKED_UP_DATABASE, DEMO_UNPROTECTED_DATABASE } from './redis-settings.js';
export { DEMO_BUSY_QUEUE, DEMO_PAUSED_QUEUE } from './queues.js';
export type { QueueEntry, QueuesOptions } from './queues.js';
export { DEMO_FAILING_SCHEDULE, DEMO_SCHEDULE_SECRET } from './schedules.js';
export type { ScheduleEntry, SchedulesOptions } from './schedules.js';
export type { RedisStatsOptions } from './redis-stats.js';
export { ROUTES } from './routes.js';
export type { Route } from './routes.js';
export { DEMO_ODD_URL_GROUP } from './url-groups.js';
export type { UrlGroup, UrlGroupsOptions } from './url-groups.js';

/** QStash token the simulator accepts by default. */
export const DEMO_QSTASH_TOKEN = 'demo-qstash-token';
/** Management API e-mail the simulator accepts by default. */
export const DEMO_EMAIL = 'demo@example.com';
/** Management API key the simulator accepts by default. */
export const DEMO_API_KEY = 'demo-management-api-key';

/** Options of {@link startSimulator}; every field has a demo-friendly default. */
export interface SimulatorOptions
  extends
    FlowControlOptions,
    UrlGroupsOptions,
    RedisStatsOptions,
    RegistriesOptions,
    QueuesOptions,
    SchedulesOptions {
  /** Listen address; default `127.0.0.1`. */
  host?: string;
  /** Listen port; default 0 (ephemeral). */
  port?: number;
  /** Accepted QStash bearer token; default {@link DEMO_QSTASH_TOKEN}. */
  qstashToken?: string;
  /** Accepted management e-mail; default {@link DEMO_EMAIL}. */
  email?: string;
  /** Accepted management API key; default {@link DEMO_API_KEY}. */
  apiKey?: string;
  /** Seed of every generated value; default fixed. */
  seed?: number;
  /** Clock in Unix milliseconds; default `Date.now`. */
  now?: () => number;
  /** Stop time at start-up and cache bodies, so responses are byte-identical across calls. */
  frozen?: boolean;
  /** Let flow-control keys and URL groups appear and vanish every {@link CHURN_PERIOD_MS}. */
  churn?: boolean;
  /**
   * Hears every request a route matched, as it arrives: its route and raw path (still URL-encoded,
   * with query). The benchmarks time when polls land and count requests per path with it.
   */
  onRequest?: (route: Route, path: string) => void;
}

/** A running fake of the Upstash endpoints on loopback. */
export interface Simulator {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  /** TCP connections accepted since start (across restarts). */
  readonly connectionsOpened: number;
  /** Make a route (or every route) misbehave; `null` restores normal service. */
  setFault(route: Route | 'all', fault: Fault | null): void;
  /** Requests received for a route, whatever their method or outcome. */
  requests(route: Route): number;
  /** Headers of the last request received for a route. */
  lastHeaders(route: Route): IncomingHttpHeaders | undefined;
  /** Raw path (still URL-encoded, with query) of the last request received for a route. */
  lastPath(route: Route): string | undefined;
  /** Serve these flow-control entries instead of generated ones; `null` goes back to generated data. */
  setFlowControl(entries: readonly FlowControlEntry[] | null): void;
  /** Serve these URL groups instead of generated ones; `null` goes back to generated data. */
  setUrlGroups(groups: readonly UrlGroup[] | null): void;
  /** Make a key's wait list grow steadily from its current size (added if absent); `null` stops it. */
  setWaitListGrowth(key: string, perMinute: number | null): void;
  /** Replace the set of database IDs that exist (others answer 404; the listing lists exactly these). */
  setDatabases(ids: readonly string[]): void;
  /** Serve these queues instead of generated ones; `null` goes back to generated data. */
  setQueues(entries: readonly QueueEntry[] | null): void;
  /** Serve these schedules instead of generated ones; `null` goes back to generated data. */
  setSchedules(entries: readonly ScheduleEntry[] | null): void;
  /** Replace the QStash instances the management API lists (the stats of others answer 404). */
  setQstashInstances(instances: readonly DemoQstashInstance[]): void;
  /** Serve this global parallelism instead of the generated one; `null` goes back to generated data. */
  setGlobalParallelism(body: GlobalParallelismBody | null): void;
  /** Replace the Vector or Search indexes the account has (the stats of others answer 404). */
  setIndexes(product: IndexProduct, indexes: readonly DemoIndex[]): void;
  /** Serve these backups for one database; `null` goes back to generated ones. */
  setBackups(databaseId: string, backups: readonly DemoBackup[] | null): void;
  /** Make a dead-letter queue misbehave page by page, or hold a given number of messages; `null` restores it. */
  setDlq(list: 'dlq' | 'workflow_dlq', behaviour: DlqBehaviour | null): void;
  /** Serve this audit log (newest first) instead of the generated one; `null` goes back to it. */
  setAuditLog(events: readonly DemoAuditEvent[] | null): void;
  /** Replace the teams the account has (the members of others answer 404). */
  setTeams(teams: readonly DemoTeam[]): void;
  /** Serve these QStash egress ranges instead of the generated ones; `null` goes back to them. */
  setEgressRanges(ranges: readonly string[] | null): void;
  /** Serve these QStash log events (QStash's shape) on both paths instead of generated ones; `null` restores. */
  setQstashLogs(events: readonly Record<string, unknown>[] | null): void;
  /**
   * From now on, `share` (0–1) of the generated deliveries to one of DEMO_DESTINATIONS (its URL) err
   * instead, on both log paths; `null` makes it healthy again. Events already served stay as they were.
   */
  setDestinationFailing(url: string, share: number | null): void;
  /** Serve these workflow runs on both paths instead of generated ones; `null` restores. */
  setWorkflowRuns(runs: readonly DemoRun[] | null): void;
  /**
   * Write the `time` of these QStash log events (by messageId) in another unit, seconds instead of
   * milliseconds say, on both paths, each still ordered and filtered by its true time (the fault of an
   * upstream dating one event in another unit); `null` ends it.
   */
  setEventTimeUnits(units: Readonly<Record<string, TimeUnit>> | null): void;
  /** Which time `fromDate` filters workflow runs on (undocumented, so both are simulated). */
  setWorkflowFromDate(reading: FromDateReading): void;
  /**
   * Whether QStash's log and Workflow's runs show events dated after the clock (`as-given`: the fault
   * of an upstream dating in another unit), only once their time has passed (`visible`, the default),
   * or some of them late (`{ late }`: the fault of an eventually consistent log; event-pages.ts).
   */
  setEventDating(dating: EventDating): void;
  /** Close the listener and destroy every open connection, hung ones included. */
  stop(): Promise<void>;
  /** Listen again on the same port after {@link Simulator.stop}, keeping all state. */
  restart(): Promise<void>;
}

/** Start the simulator; it listens on 127.0.0.1 and an ephemeral port unless told otherwise. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const clock = options.now ?? Date.now;
  const origin = clock();
  const frozen = options.frozen ?? false;
  // Frozen: time stands still at start-up, and bodies are cached until a test changes the data.
  const now = frozen ? () => origin : clock;
  const registries = createRegistries(now, origin, options);
  const ctx: EndpointContext = {
    seed: (options.seed ?? 20250831) >>> 0,
    origin,
    now,
    frozen,
    churn: options.churn ?? false,
    registries,
    opening: new Opening(now, frozen),
  };
  const routes = ENDPOINTS.map((spec) => ({ spec, endpoint: spec.create(ctx, options) }));
  // Each name is in the table once, beside its own create(); TypeScript cannot carry that through map().
  const endpoints = Object.fromEntries(routes.map((r) => [r.spec.name, r.endpoint])) as Endpoints;
  const faults = new FaultTable<Route>();
  const server = new SimulatorServer<Route>({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    credentials: {
      qstashToken: options.qstashToken ?? DEMO_QSTASH_TOKEN,
      email: options.email ?? DEMO_EMAIL,
      apiKey: options.apiKey ?? DEMO_API_KEY,
    },
    routes,
    faults,
    onRequest: options.onRequest,
  });
  await server.listen();

  return {
    get url() {
      return server.url;
    },
    get connectionsOpened() {
      return server.connectionsOpened;
    },
    setFault(route, fault) {
      for (const r of route === 'all' ? ROUTES : [route]) faults.set(r, fault);
    },
    requests: (route) => server.requests(route),
    lastHeaders: (route) => server.lastHeaders(route),
    lastPath: (route) => server.lastPath(route),
    setFlowControl: (entries) => {
      endpoints.flow_control.setOverride(entries);
    },
    setUrlGroups: (groups) => {
      endpoints.url_groups.setOverride(groups);
    },
    setWaitListGrowth: (key, perMinute) => {
      endpoints.flow_control.setGrowth(key, perMinute);
    },
    setDatabases: (ids) => {
      registries.databases.replace(databasesByIds(ids));
    },
    setQueues: (entries) => {
      endpoints.queues.setOverride(entries);
    },
    setSchedules: (entries) => {
      endpoints.schedules.setOverride(entries);
    },
    setGlobalParallelism: (body) => {
      endpoints.global_parallelism.setOverride(body);
    },
    setIndexes: (product, indexes) => {
      registries.indexes[product].replace(indexes);
    },
    setBackups: (databaseId, backups) => {
      endpoints.redis_backups.setBackups(databaseId, backups);
    },
    setQstashInstances: (instances) => {
      registries.qstashInstances.replace(instances);
    },
    setDlq: (list, behaviour) => {
      endpoints[list].setOverride(behaviour);
    },
    setAuditLog: (events) => {
      endpoints.audit_logs.setOverride(events);
    },
    setTeams: (teams) => {
      registries.teams.replace(teams);
    },
    setEgressRanges: (ranges) => {
      endpoints.qstash_egress_ips.setOverride(ranges);
    },
    setQstashLogs: (events) => {
      endpoints.qstash_logs.setOverride(events);
      endpoints.qstash_events.setOverride(events);
    },
    setDestinationFailing: (url, share) => {
      endpoints.qstash_logs.setDestinationFailing(url, share);
      endpoints.qstash_events.setDestinationFailing(url, share);
    },
    setWorkflowRuns: (runs) => {
      endpoints.workflow_logs.setOverride(runs);
      endpoints.workflow_events.setOverride(runs);
    },
    setEventDating: (dating) => {
      for (const endpoint of [
        endpoints.qstash_logs,
        endpoints.qstash_events,
        endpoints.workflow_logs,
        endpoints.workflow_events,
      ])
        endpoint.setDating(dating);
    },
    setEventTimeUnits: (units) => {
      endpoints.qstash_logs.setTimeUnits(units);
      endpoints.qstash_events.setTimeUnits(units);
    },
    setWorkflowFromDate: (reading) => {
      endpoints.workflow_logs.setFromDateReading(reading);
      endpoints.workflow_events.setFromDateReading(reading);
    },
    stop: () => server.stop(),
    async restart() {
      await server.stop();
      await server.listen();
    },
  };
}
