import { describe, expect, test } from 'vitest';
import { find, sumOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { after, eventually, scrapeUntil, useHarness, type Harness } from '../helpers/harness.js';

// The event rule against times no event should be trusted with (docs/metrics.md, Event counters),
// through the real exporter polling the simulator over HTTP: one event dated in seconds among
// milliseconds ends no scan; one dated a few minutes ahead moves W no further than the exporter's
// clock; a poll capped again and again says each unread second once, never more than elapsed.

const start = useHarness({ qstashSources: ['qstash_logs'], managementSources: [] });

const LOGS = { source: 'qstash_logs', account: 'eu' };

const errors = (s: ParsedSample[]) => sumOf(s, 'upstash_qstash_delivery_errors_total', { account: 'eu' });
const polls = (s: ParsedSample[]) => sumOf(s, 'upstash_exporter_polls_total', LOGS);

/** Scrapes until the log was polled `more` more times than now; calls `each` with every scrape. */
async function pollsLater(h: Harness, more: number, each: (s: ParsedSample[]) => void = () => undefined) {
  const from = polls((await h.scrape()).samples);
  return scrapeUntil(h, `${more} more polls`, (s) => {
    each(s);
    return polls(s) >= from + more;
  });
}

const error = (time: number, messageId: string) => ({
  time,
  messageId,
  state: 'ERROR',
  url: 'https://api.example.com/hook',
  responseStatus: 500,
});

describe('times no event is trusted with, through the exporter', () => {
  test('one event dated in seconds ends no scan: the 299 others are counted, its time refused once', async () => {
    const h = await start({ limits: { eventSettle: 5_000 } });
    const begun = Date.now();
    h.sim.setQstashLogs([]);
    await pollsLater(h, 3);
    // Beside what the demo served before (its opening's error).
    const base = errors((await h.scrape()).samples);
    await after(begun, 2_000);
    // 300 ERROR events over 1.5 s, all after the start, shown at once; the 50th newest (of its true
    // time, by which Upstash orders and filters it) says its time in seconds.
    const first = begun + 200;
    const events = Array.from({ length: 300 }, (_, i) => error(first + i * 5, `msg-${i}`));
    h.sim.setEventTimeUnits({ 'msg-250': 's' });
    h.sim.setQstashLogs(events);
    // Three polls, and then the settle window passed.
    await pollsLater(h, 3);
    await eventually('the settle window passed', () =>
      Date.now() > first + 1_500 + 6_000 ? true : undefined,
    );
    const samples = await pollsLater(h, 2);
    expect(errors(samples) - base).toBe(299);
    expect(sumOf(samples, 'upstash_exporter_fields_rejected_total', { ...LOGS, field: 'time' })).toBe(1);
  });

  test('one event a few minutes ahead hides nothing after it, and W never runs ahead of the clock', async () => {
    const h = await start();
    h.sim.setQstashLogs([]);
    await pollsLater(h, 2);
    const base = errors((await h.scrape()).samples);
    // Dated 4 minutes ahead (inside the 5-minute horizon: counted), served whatever its date.
    h.sim.setEventDating('as-given');
    const early = error(Date.now() + 240_000, 'msg-early');
    h.sim.setQstashLogs([early]);
    await scrapeUntil(h, 'the early event counted', (s) => errors(s) > base);
    // Ten events after it was read, dated as they happen.
    const now = Date.now();
    await after(now, 1_000);
    const following = Array.from({ length: 10 }, (_, i) => error(now + i * 100, `msg-next-${i}`));
    h.sim.setQstashLogs([early, ...following]);
    const ahead: number[] = [];
    const samples = await pollsLater(h, 5, (s) => {
      const clock = Date.now() / 1000;
      for (const w of find(s, 'upstash_qstash_logs_watermark_timestamp_seconds', { account: 'eu' }))
        if (w.value > clock) ahead.push(w.value - clock);
    });
    expect(errors(samples) - base).toBe(11);
    expect(ahead).toEqual([]);
  });

  test('a poll capped again and again says each unread second once: never more than elapsed', async () => {
    // Taken before the exporter starts: nothing can be unread from before it.
    const begun = Date.now();
    const h = await start({ limits: { maxEventPages: 1 } });
    // Pages full of events dated in microseconds (refused), served whatever their date: every poll
    // stops at the page cap, and W cannot move.
    h.sim.setEventDating('as-given');
    const now = Date.now();
    h.sim.setQstashLogs(Array.from({ length: 150 }, (_, i) => error((now + i) * 1000, `msg-us-${i}`)));
    const samples = await pollsLater(h, 11);
    const elapsed = (Date.now() - begun) / 1000;
    const unread = sumOf(samples, 'upstash_qstash_logs_unread_seconds_total', {
      account: 'eu',
      state: 'ERROR',
    });
    expect(sumOf(samples, 'upstash_qstash_logs_scan_complete', { account: 'eu', state: 'ERROR' })).toBe(0);
    expect(unread).toBeGreaterThan(0);
    expect(unread).toBeLessThanOrEqual(elapsed);
  });
});
