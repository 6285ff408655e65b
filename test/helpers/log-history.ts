import fc from 'fast-check';
import { qstashDeliveries } from '../../src/sources/qstash-deliveries.js';
import { qstashLogs } from '../../src/sources/qstash-logs.js';
import { EventAccount, SETTLE_MS, START, labelOf, type SeriesKey } from './event-account.js';
import { EventModel, type Check } from './event-model.js';
import { timeClass } from './event-steps.js';
import { plausible, timeOf, type TimeClass } from './event-upstream.js';
import { expect } from 'vitest';

// Histories of the QStash log's sources (docs/metrics.md, Event counters) for the generator of
// test/property/event-logs.property.test.ts: events of ERROR, FAILED and DELIVERED dated in every
// unit and edge (seconds, micro- and nanoseconds, zero, negative, fractional, not a number, before
// 2015, minutes ahead, far ahead), listed twice, arriving while a poll pages, visible late within
// and beyond the settle window; polls that stop at page caps or fail on a page; reloads; worker
// deaths at any step, a death just after a poll included (its result never published). Each event
// is its own label set (its queue), so the series say which events were counted, and how often.

const STATES = ['ERROR', 'FAILED', 'DELIVERED'] as const;
type LogState = (typeof STATES)[number];

/** One step of the generated history. */
export type LogStep =
  | {
      readonly kind: 'arrive';
      readonly state: LogState;
      readonly count: number;
      readonly time: TimeClass;
      readonly aheadMs: number;
      readonly copies: number;
      /** Visible only once the next poll has read a page. */
      readonly during: boolean;
    }
  | { readonly kind: 'late'; readonly state: LogState; readonly ms: number }
  | { readonly kind: 'advance'; readonly ms: number }
  | {
      readonly kind: 'poll';
      readonly source: 'logs' | 'deliveries';
      readonly page: number;
      readonly failAt: number | undefined;
      readonly publish: boolean;
    }
  | { readonly kind: 'die' }
  | { readonly kind: 'reload'; readonly pages: number };

const state = fc.constantFrom(...STATES);
/** A step of a log history, its event times of `times`. */
export function logStep(times: fc.Arbitrary<TimeClass> = timeClass): fc.Arbitrary<LogStep> {
  return fc.oneof(
    fc.record({
      kind: fc.constant('arrive' as const),
      state,
      count: fc.integer({ min: 1, max: 3 }),
      time: times,
      aheadMs: fc.integer({ min: 60_000, max: 240_000 }),
      copies: fc.integer({ min: 1, max: 2 }),
      during: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('late' as const), state, ms: fc.integer({ min: 1, max: 2 * SETTLE_MS }) }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 30_000 }) }),
    fc.record({
      kind: fc.constant('poll' as const),
      source: fc.constantFrom('logs' as const, 'deliveries' as const),
      page: fc.integer({ min: 1, max: 4 }),
      failAt: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined, freq: 4 }),
      publish: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('die' as const) }),
    fc.record({ kind: fc.constant('reload' as const), pages: fc.integer({ min: 1, max: 4 }) }),
  );
}

const COUNTERS = [
  'upstash_qstash_delivery_errors_total',
  'upstash_qstash_deliveries_failed_total',
  'upstash_qstash_deliveries_total',
];

/** Per event (its queue), how often the log's counters count it. */
function counts(series: ReadonlyMap<SeriesKey, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of series) {
    if (!COUNTERS.some((name) => key.startsWith(`${name}{`))) continue;
    const id = labelOf(key, 'queue') ?? '';
    out.set(id, (out.get(id) ?? 0) + value);
  }
  return out;
}

/** Plays `steps` on a fresh account, then reads everything and checks the end. */
export async function playLogs(steps: readonly LogStep[], skip: readonly Check[] = []): Promise<void> {
  const account = new EventAccount([qstashLogs, qstashDeliveries], { maxEventPages: 1 });
  const model = new EventModel(account, { counts, timeFields: ['time'], skip });
  const { upstream } = account;
  let serial = 0;
  const add = (s: LogState, kind: TimeClass, ms: number, aheadMs = 0, copies = 1, during = false): void => {
    const id = `e${serial++}`;
    const { field, at } = timeOf(kind, ms, aheadMs);
    const body = {
      time: field,
      messageId: id,
      state: s,
      url: 'https://d.test/hook',
      queueName: id,
      ...(s === 'ERROR' && { responseStatus: 500 }),
    };
    const event = upstream.add({ id, state: s, at, body, copies, visible: !during });
    if (during) upstream.arriving.push(event);
    const time = kind === 'ahead' ? ms + aheadMs : ms;
    model.add({
      id,
      state: s,
      plausible: plausible(kind),
      time,
      visibleAt: during ? undefined : account.clock,
    });
  };
  try {
    // History before the start is never counted.
    add('ERROR', 'ms', START - 5000);
    for (const s of steps) {
      if (s.kind === 'arrive')
        for (let i = 0; i < s.count; i++) add(s.state, s.time, account.clock, s.aheadMs, s.copies, s.during);
      else if (s.kind === 'late') add(s.state, 'ms', Math.max(START, account.clock - s.ms));
      else if (s.kind === 'advance') account.advance(s.ms);
      else if (s.kind === 'die') model.die();
      else if (s.kind === 'reload') account.reload({ maxEventPages: s.pages });
      else {
        upstream.pageSize = s.page;
        const polled = await account.poll(s.source === 'logs' ? qstashLogs : qstashDeliveries, s.failAt);
        model.afterPoll(polled, account.clock, s.publish);
      }
    }
    // Everything read: the clock past every horizon, pages and caps wide.
    account.advance(400_000);
    upstream.pageSize = 100;
    account.reload({ maxEventPages: 100 });
    for (let round = 0; round < 2; round++) {
      for (const source of [qstashLogs, qstashDeliveries])
        model.afterPoll(await account.poll(source), account.clock, true);
      account.advance(1000);
    }
    expect(counts(model.latest).get('e0') ?? 0, 'an event before the start counted').toBe(0);
    model.checkEnd();
  } finally {
    await account.close();
  }
}
