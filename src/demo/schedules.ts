import { OneBody } from './bodies.js';
import { defineEndpoint, demoThenGenerated } from './endpoint.js';
import type { EndpointContext } from './endpoint.js';
import { noise } from './noise.js';

/** One schedule, as QStash's `GET /v2/schedules` returns it. */
export interface ScheduleEntry {
  scheduleId: string;
  cron: string;
  destination: string;
  createdAt: number;
  method: string;
  header?: Record<string, string[]>;
  body?: string;
  retries?: number;
  callback?: string;
  isPaused: boolean;
  lastScheduleTime?: number;
  nextScheduleTime?: number;
  lastScheduleStates?: Record<string, string>;
}

/** A secret a schedule carries in its destination, headers and body: it must never reach /metrics. */
export const DEMO_SCHEDULE_SECRET = 'demo-schedule-secret-3c1f';
/** The schedule that starts failing 20 s after start-up. */
export const DEMO_FAILING_SCHEDULE = 'scd_sync-crm';

const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * When the CRM sync starts failing, after start-up: soon enough that a demo user who opens the landing
 * page sees it (and the e2e test of that page need not wait long), late enough that the series shows a
 * change (the demo polls schedules every 5 s).
 */
export const FAILS_AFTER_MS = 20_000;

/** The last and next run of a schedule firing every `periodMs` from midnight plus `offsetMs`. */
function runs(t: number, periodMs: number, offsetMs = 0): { last: number; next: number } {
  const last = Math.floor((t - offsetMs) / periodMs) * periodMs + offsetMs;
  return { last, next: last + periodMs };
}

/** The demo's own schedules: heartbeat, CRM sync, nightly report, legacy clean-up. */
const DEMO_SCHEDULES = 4;
/** Periods of the generated schedules, in minutes, with the cron expression of each. */
const GENERATED_PERIODS = [
  [1, '* * * * *'],
  [5, '*/5 * * * *'],
  [15, '*/15 * * * *'],
  [60, '0 * * * *'],
] as const;

/** Options of the simulated `GET /v2/schedules`. */
export interface SchedulesOptions {
  /** Number of schedules; default 4 (the demo's own); any more are generated. */
  schedules?: number;
}

/** A generated schedule: every 1, 5, 15 or 60 minutes, its last run a success (one in fifty failed). */
function generatedSchedule(seed: number, index: number, created: number, t: number): ScheduleEntry {
  const u = (salt: number): number => noise(seed ^ 0x5c4d, index, salt);
  const [minutes, cron] = GENERATED_PERIODS[Math.floor(u(1) * GENERATED_PERIODS.length)] ?? [1, '* * * * *'];
  const { last, next } = runs(t, minutes * MINUTE);
  return {
    scheduleId: `scd_generated-${String(index).padStart(5, '0')}`,
    cron,
    destination: `https://jobs.example.com/run/${index}`,
    createdAt: created,
    method: 'POST',
    isPaused: false,
    lastScheduleTime: last,
    nextScheduleTime: next,
    lastScheduleStates: { [`msg_gen_${index}_${last}`]: u(2) < 0.02 ? 'FAIL' : 'SUCCESS' },
  };
}

/**
 * The simulated schedules at time t: a healthy frequent one, one that starts failing, a nightly one, a
 * paused one, and generated ones up to `count`.
 */
function schedulesAt(ctx: EndpointContext, count: number, t: number): ScheduleEntry[] {
  const created = ctx.origin - 7 * DAY;
  const secretHeader = { Authorization: [`Bearer ${DEMO_SCHEDULE_SECRET}`] };
  const heartbeat = runs(t, MINUTE);
  const sync = runs(t, 5 * MINUTE);
  const nightly = runs(t, DAY, 3 * 60 * MINUTE);
  const syncFails = t - ctx.origin >= FAILS_AFTER_MS;
  const demo: ScheduleEntry[] = [
    {
      scheduleId: 'scd_heartbeat',
      cron: '* * * * *',
      destination: 'https://api.example.com/heartbeat',
      createdAt: created,
      method: 'GET',
      isPaused: false,
      lastScheduleTime: heartbeat.last,
      nextScheduleTime: heartbeat.next,
      lastScheduleStates: { [`msg_hb_${heartbeat.last}`]: 'SUCCESS' },
    },
    {
      scheduleId: DEMO_FAILING_SCHEDULE,
      cron: '*/5 * * * *',
      destination: `https://crm.example.com/sync?key=${DEMO_SCHEDULE_SECRET}`,
      createdAt: created,
      method: 'POST',
      header: secretHeader,
      body: JSON.stringify({ token: DEMO_SCHEDULE_SECRET }),
      retries: 3,
      callback: 'https://api.example.com/callbacks/crm',
      isPaused: false,
      lastScheduleTime: sync.last,
      nextScheduleTime: sync.next,
      lastScheduleStates: {
        [`msg_crm_${sync.last}_a`]: 'SUCCESS',
        [`msg_crm_${sync.last}_b`]: syncFails ? 'FAIL' : 'SUCCESS',
      },
    },
    {
      scheduleId: 'scd_nightly-report',
      cron: '0 3 * * *',
      destination: 'reports-url-group',
      createdAt: created,
      method: 'POST',
      isPaused: false,
      lastScheduleTime: nightly.last,
      nextScheduleTime: nightly.next,
      lastScheduleStates: { [`msg_nightly_${nightly.last}`]: 'SUCCESS' },
    },
    // Paused before it ever ran: no last run, no states.
    {
      scheduleId: 'scd_legacy-cleanup',
      cron: '30 4 * * 1',
      destination: 'https://legacy.example.com/cleanup',
      createdAt: created,
      method: 'DELETE',
      header: secretHeader,
      isPaused: true,
    },
  ];
  return demoThenGenerated(demo, count, (index) => generatedSchedule(ctx.seed, index, created, t));
}

/** QStash `GET /v2/schedules`. */
export const schedulesEndpoint = defineEndpoint({
  name: 'schedules',
  credential: 'bearer',
  path: '/v2/schedules',
  oversizeFrame: ['[{"scheduleId":"s","cron":"* * * * *","padding":"', '"}]'],
  create: (ctx, options: SchedulesOptions) => {
    const count = Math.max(0, options.schedules ?? DEMO_SCHEDULES);
    return new OneBody<readonly ScheduleEntry[]>(
      ctx,
      (t, override) => override ?? schedulesAt(ctx, count, t),
    );
  },
});
