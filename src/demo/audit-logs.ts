import {
  DEMO_API_KEY_NAMES,
  DEMO_AUDIT_ACTORS,
  DEMO_AUDIT_CUSTOMER,
  DEMO_AUDIT_ENTITIES,
  DEMO_AUDIT_IPS,
} from './account-safety.js';
import { OneBody } from './bodies.js';
import { defineEndpoint } from './endpoint.js';

/** One audit event as a test sets it: the fields the exporter reads, the rest filled in as the demo's. */
export interface DemoAuditEvent {
  readonly log_id: string;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly action_string: string;
  readonly source: string;
}

/** One event every this many clock milliseconds after the simulator started. */
export const AUDIT_STEP_MS = 20_000;
/** Events of the log before the simulator started (one a day), as a real log has its history. */
const HISTORY_DAYS = 30;

/**
 * What the demo account does, in turn: every sixth event is a deletion (the destructive actions
 * UpstashAuditDestructiveAction looks for), the rest ordinary changes. Upstash's own spellings
 * (`action_string`, as the reference's example `Delete Team`).
 */
const ACTIONS = [
  'Create Database',
  'Update Database',
  'Create Backup',
  'Add Team Member',
  'Update Database',
  'Delete Database',
] as const;
/**
 * The kinds of source: the console, and API keys by name (`API_KEY - <name>`, as the reference's
 * example `API_KEY - system_tests`). The console's spelling is not documented; this is a guess the
 * exporter keeps as it comes, as it would any other.
 */
const SOURCES = [
  'CONSOLE',
  `API_KEY - ${DEMO_API_KEY_NAMES[0]}`,
  'CONSOLE',
  `API_KEY - ${DEMO_API_KEY_NAMES[1]}`,
];

/** The whole event `n` (history is negative), every field of the OpenAPI `AuditLog`. */
function event(n: number, timestamp: number): Record<string, unknown> {
  const k = Math.abs(n);
  return {
    log_id: `demo-audit-${n < 0 ? 'h' : 'e'}${k}`,
    customer_id: DEMO_AUDIT_CUSTOMER,
    actor: DEMO_AUDIT_ACTORS[k % DEMO_AUDIT_ACTORS.length],
    timestamp,
    action: 10 + (k % ACTIONS.length),
    action_string: ACTIONS[k % ACTIONS.length],
    source: SOURCES[k % SOURCES.length],
    entity: DEMO_AUDIT_ENTITIES[k % DEMO_AUDIT_ENTITIES.length],
    secondary_entity: k % 2 === 0 ? 'NA' : DEMO_AUDIT_ENTITIES[(k + 1) % DEMO_AUDIT_ENTITIES.length],
    third_entity: '',
    readable_format: '',
    ip: DEMO_AUDIT_IPS[k % DEMO_AUDIT_IPS.length],
    ttl: timestamp + 180 * 86_400,
    reason: '',
    notes: '',
  };
}

/**
 * The log at time t (ms): newest first, the events since `origin`, the opening's (opening.ts; event
 * 0, a database created from the console, at the opening's second) and a month of history.
 */
function auditLog(origin: number, t: number, opened: number | undefined): Record<string, unknown>[] {
  const start = Math.floor(origin / 1000);
  const since = Math.max(0, Math.floor((t - origin) / AUDIT_STEP_MS));
  const events: Record<string, unknown>[] = [];
  for (let n = since; n >= 1; n--) events.push(event(n, start + (n * AUDIT_STEP_MS) / 1000));
  // (Fixed by this read or an earlier one: never after the read, whatever t says a moment before.)
  if (opened !== undefined) events.push(event(0, Math.floor(opened / 1000)));
  // Newest first: the opening is at any time after start-up, not always before event 1.
  events.sort((a, b) => Number(b.timestamp) - Number(a.timestamp));
  for (let day = 1; day <= HISTORY_DAYS; day++) events.push(event(-day, start - day * 86_400));
  return events;
}

/** Management API `GET /auditlogs` (no `/v2`): the account's whole retained log, unpaged. */
export const auditLogsEndpoint = defineEndpoint({
  name: 'audit_logs',
  credential: 'basic',
  path: '/auditlogs',
  oversizeFrame: ['[{"log_id":"x","timestamp":1,"notes":"', '"}]'],
  create: (ctx) =>
    new OneBody<readonly DemoAuditEvent[]>(ctx, (t, override) =>
      override === null
        ? auditLog(ctx.origin, t, ctx.opening.at())
        : override.map((e, k) => ({ ...event(k, e.timestamp), ...e })),
    ),
});
