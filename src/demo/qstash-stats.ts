import { PerIdBodies } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import { formatGoTime } from './go-time.js';
import { hashString, noise, round } from './noise.js';
import type { DemoQstashInstance } from './qstash-instances.js';

const DAY = 86_400_000;
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Requests an instance has made by time t of a day whose start is `dayStart`. */
function requestsOn(instance: DemoQstashInstance, dayStart: number, t: number, seed: number): number {
  const fraction = Math.min(1, (t - dayStart) / DAY);
  const limit = instance.maxRequestsPerDay;
  if (instance.type === 'free') {
    // A small account that spends most of its quota by mid-morning: near the limit most of the day.
    return Math.round(limit * Math.min(0.97, 0.8 + 0.3 * fraction));
  }
  const dayFactor = 0.6 + 0.3 * noise(seed ^ hashString(instance.id), Math.floor(dayStart / DAY), 31);
  return Math.round(limit * dayFactor * fraction);
}

/**
 * Outcome ids and the messages of each per minute on average: mostly delivered, a few retried,
 * failed or errored (about 2.5 %, under the failure alert's 5 %); a workflow failure now and then.
 */
const QSTASH_OUTCOMES = { delivered: 30, retry: 1, failed: 0.5, error: 0.3 } as const;
const WORKFLOW_OUTCOMES = { delivered: 4, failed: 0.02 } as const;

/**
 * The last hour's points of each outcome, moving with the minute: `{id, data_points}` as Upstash
 * sends `daily_qstash_messages`. A point is drawn between 0 and twice the rate and rounded up or
 * down at random, so it averages the rate, fractions included.
 */
function outcomes(
  rates: Readonly<Record<string, number>>,
  recent: readonly string[],
  t: number,
  seed: number,
): unknown[] {
  const minute = Math.floor(t / 60_000);
  return Object.entries(rates).map(([id, rate], k) => ({
    id,
    data_points: recent.map((x, i) => {
      const at = minute - 59 + i;
      return { x, y: Math.floor(2 * rate * noise(seed, at, 61 + k) + noise(seed, at, 71 + k)) };
    }),
  }));
}

/** One instance's stats at time t, shaped as the Developer API's QStashStats. */
function statsBody(instance: DemoQstashInstance, origin: number, t: number, seed: number): unknown {
  const now = new Date(t);
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  const sinceMidnight = t - Math.floor(t / DAY) * DAY;
  const today = Math.floor((t - monthStart) / DAY);
  // Every day of the month, future days padded with zeros at this time of day, as Upstash sends them.
  const days = Array.from({ length: daysInMonth }, (_, d) => {
    const start = monthStart + d * DAY;
    const requests = d > today ? 0 : requestsOn(instance, start, d === today ? t : start + DAY, seed);
    return { x: formatGoTime(start + sinceMidnight, '585757103'), requests };
  });
  const dollars = (requests: number): number => (instance.type === 'paid' ? round(requests / 100_000, 4) : 0);
  // The dead-letter queue grows by 3 messages a minute on the busy instance, and sits still on the other.
  const dlq =
    instance.type === 'paid'
      ? 40 + Math.floor((3 * (t - origin)) / 60_000)
      : Math.round(instance.maxDlqSize * 0.12);
  const recent = Array.from({ length: 60 }, (_, i) => formatGoTime(t - (59 - i) * 60_000, '426'));
  return {
    days: days.map((_, d) => DAY_NAMES[new Date(monthStart + d * DAY).getUTCDay()]),
    daily_requests: days.map((d) => ({
      x: d.x,
      y: d.requests,
      workflow_message: Math.round(d.requests * 0.05),
      workflow_run: Math.round(d.requests * 0.01),
    })),
    daily_billings: days.map((d) => ({ x: d.x, y: dollars(d.requests) })),
    daily_bandwidths: days.map((d) => ({ x: d.x, y: d.requests * 2048 })),
    daily_used: recent.map((x, i) => ({ x, y: Math.round(5 + 10 * noise(seed, i, 41)) })),
    daily_used_workflow: recent.map((x, i) => ({ x, y: Math.round(2 * noise(seed, i, 53)) })),
    daily_qstash_messages: outcomes(QSTASH_OUTCOMES, recent, t, seed ^ hashString(instance.id)),
    daily_workflow_messages: outcomes(WORKFLOW_OUTCOMES, recent, t, seed ^ hashString(`${instance.id}/wf`)),
    dlq_message_count: dlq,
    daily_bandwidth_used: recent.map((x, i) => ({ x, y: Math.round(10_000 * noise(seed, i, 47)) })),
    total_monthly_billing: round(
      days.slice(0, today + 1).reduce((sum, d) => sum + dollars(d.requests), 0),
      3,
    ),
  };
}

/**
 * Management API `GET /v2/qstash/stats/{id}` of the instances listed now; others answer 404. The period
 * query is ignored.
 */
export const qstashStatsEndpoint = defineEndpoint({
  name: 'qstash_stats',
  credential: 'basic',
  path: '/v2/qstash/stats/{id}',
  oversizeFrame: ['{"dlq_message_count":0,"padding":"', '"}'],
  create: (ctx) =>
    new PerIdBodies(ctx, ctx.registries.qstashInstances, 'qstash user not found', (instance, t) =>
      statsBody(instance, ctx.origin, t, ctx.seed),
    ),
});
