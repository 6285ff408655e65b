import { describe, expect, test } from 'vitest';
import { MAX_LABEL_VALUE_LENGTH } from '../../src/metrics/label-limit.js';
import { valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { eventually, leakedSecret, useHarness, type Harness } from '../helpers/harness.js';

// DLQ paging end to end (docs/metrics.md, QStash dead-letter queues): the real exporter paging the
// simulator's DLQ over HTTP, each way a page could break it, as a user sees it on /metrics and in the log.

const DLQ_LABELS = { source: 'dlq', account: 'eu', database_id: '', qstash_id: '' };
const ACCOUNT = { account: 'eu' };

const start = useHarness({
  sim: { frozen: true },
  qstashSources: ['dlq'],
  managementSources: [],
  dlqIntervalSeconds: 1,
});

const failures = (s: ParsedSample[], reason: string): number =>
  valueOf(s, 'upstash_exporter_poll_failures_total', { ...DLQ_LABELS, reason }) ?? 0;

/** The first scrape after a DLQ poll failed with `reason`. */
function failedWith(h: Harness, reason: string): Promise<ParsedSample[]> {
  return eventually(`a DLQ poll failed with ${reason}`, async () => {
    const { samples } = await h.scrape();
    return failures(samples, reason) >= 1 ? samples : undefined;
  });
}

/** The first scrape that shows a successful DLQ scan of `messages` messages. */
function scanned(h: Harness, messages: number): Promise<ParsedSample[]> {
  return eventually(`a DLQ scan of ${messages} messages`, async () => {
    const { samples } = await h.scrape();
    const ok = valueOf(samples, 'upstash_up', DLQ_LABELS) === 1;
    return ok && valueOf(samples, 'upstash_qstash_dlq_scanned_messages', ACCOUNT) === messages
      ? samples
      : undefined;
  });
}

const page = (body: unknown) => ({
  kind: 'body' as const,
  body: JSON.stringify(body),
  contentType: 'application/json',
});

describe('DLQ paging through the exporter', () => {
  test('a page longer than the count asked for fails the poll as invalid_response and keeps the last good scan', async () => {
    const h = await start();
    h.sim.setDlq('dlq', { messages: 150 });
    await scanned(h, 150);
    const messages = Array.from({ length: 2000 }, (_, i) => ({ queueName: 'q', createdAt: i }));
    h.sim.setFault('dlq', page({ messages }));
    const failed = await failedWith(h, 'invalid_response');
    expect(valueOf(failed, 'upstash_up', DLQ_LABELS)).toBe(0);
    expect(valueOf(failed, 'upstash_qstash_dlq_scanned_messages', ACCOUNT)).toBe(150);
    expect(h.logs.some((line) => line.includes('holds 2000 entries, more than the 100 asked for'))).toBe(
      true,
    );
  });

  test('"cursor": null ends paging and "messages": null is an empty page: the polls succeed', async () => {
    const h = await start();
    h.sim.setFault('dlq', page({ messages: [{ queueName: 'orders', createdAt: 5 }], cursor: null }));
    const s = await scanned(h, 1);
    expect(valueOf(s, 'upstash_qstash_dlq_scan_complete', ACCOUNT)).toBe(1);
    h.sim.setFault('dlq', page({ messages: null, cursor: null }));
    await scanned(h, 0);
    const { samples } = await h.scrape();
    expect(failures(samples, 'invalid_response')).toBe(0);
  });

  test('a 200,000-character cursor: invalid_response (never sent, so no 431 client_error), and every log line stays short', async () => {
    const h = await start();
    const huge = `c${'x'.repeat(200_000)}`;
    h.sim.setFault('dlq', page({ messages: [], cursor: huge }));
    const failed = await failedWith(h, 'invalid_response');
    expect(failures(failed, 'client_error')).toBe(0);
    expect(h.sim.requests('dlq')).toBeGreaterThan(0);
    const line = h.logs.find((l) => l.includes('cursor longer than 4096 bytes'));
    expect(line).toBeDefined();
    for (const l of h.logs) expect(l.length).toBeLessThan(4096);
  });

  test('a poll that pages for longer than three dlq_intervals keeps its series until it succeeds', async () => {
    // dlq_interval 1 s, so the staleness window is 3 s; five pages of 0.8 s each take 4 s or more.
    const h = await start();
    h.sim.setDlq('dlq', { messages: 500 });
    h.sim.setFault('dlq', { kind: 'delay', ms: 800 });
    const first = await scanned(h, 500);
    const polls = (s: ParsedSample[]) => valueOf(s, 'upstash_exporter_polls_total', DLQ_LABELS) ?? 0;
    const since = polls(first);
    let scrapes = 0;
    await eventually('two more slow polls', async () => {
      const { samples } = await h.scrape();
      scrapes++;
      // Every scrape meanwhile has the last scan: no gap while the next poll pages.
      expect(valueOf(samples, 'upstash_qstash_dlq_scanned_messages', ACCOUNT)).toBe(500);
      return polls(samples) >= since + 2 ? true : undefined;
    });
    expect(scrapes).toBeGreaterThan(5);
    expect(h.logs.some((line) => line.includes('series dropped'))).toBe(false);
  });

  test('three pages of 80,000-character queue names: each kept as a capped label, the rest counted as truncated', async () => {
    // 100 such names make an 8 MB page: the body cap is raised so that the pages are read.
    const h = await start({
      limits: { maxQueues: 5 },
      http: { maxBodyBytes: 16 * 1024 * 1024 },
      dlqIntervalSeconds: 2,
    });
    h.sim.setDlq('dlq', { messages: 300, queueNameLength: 80_000 });
    const s = await scanned(h, 300);
    expect(valueOf(s, 'upstash_qstash_dlq_scan_complete', ACCOUNT)).toBe(1);
    const queues = s.filter((x) => x.name === 'upstash_qstash_dlq_messages_by_queue');
    expect(queues).toHaveLength(5);
    for (const q of queues) {
      expect(q.labels.queue!.length).toBeLessThanOrEqual(MAX_LABEL_VALUE_LENGTH);
      expect(q.labels.queue).toMatch(/^q[0-9]+-n+~[0-9a-f]{16}$/);
      expect(q.value).toBe(1);
    }
    // Per poll of these pages: the 295 queues the cap left out and the 5 kept ones that were cut.
    // Earlier polls (the simulator's usual DLQ, before the names changed) truncate nothing.
    const truncated = valueOf(s, 'upstash_exporter_label_values_truncated_total', DLQ_LABELS)!;
    expect(truncated % 300).toBe(0);
    expect(truncated).toBeGreaterThanOrEqual(300);
    expect(leakedSecret(s.map((x) => JSON.stringify(x.labels)).join(''))).toBeUndefined();
  });
});
