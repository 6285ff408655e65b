import { describe, expect, test } from 'vitest';
import { DEMO_QSTASH_INSTANCES } from '../../src/demo/simulator.js';
import { valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import {
  eventually,
  leakedSecret,
  QSTASH_TOKEN,
  EMAIL,
  API_KEY,
  useHarness,
  type Harness,
} from '../helpers/harness.js';

// QStash delivery end to end: the real exporter (createApp) polling the simulator over HTTP, scraped over
// HTTP. Outcomes, limits and the DLQs by value; paging, its cap and its failures as a user sees them.

const [EU] = DEMO_QSTASH_INSTANCES;
const DLQ_LABELS = { source: 'dlq', account: 'eu', database_id: '', qstash_id: '' };
const WORKFLOW_LABELS = { ...DLQ_LABELS, source: 'workflow_dlq' };

const start = useHarness({
  sim: { frozen: true },
  qstashSources: ['dlq', 'workflow_dlq'],
  managementSources: ['qstash_users', 'qstash_stats'],
});

async function upstream<T>(h: Harness, path: string, api: 'qstash' | 'management'): Promise<T> {
  const authorization =
    api === 'qstash'
      ? `Bearer ${QSTASH_TOKEN}`
      : `Basic ${Buffer.from(`${EMAIL}:${API_KEY}`).toString('base64')}`;
  const response = await fetch(`${h.sim.url}${path}`, { headers: { authorization } });
  return (await response.json()) as T;
}

interface Message {
  queueName?: string;
  topicName?: string;
  responseStatus?: number;
  failureFunctionState?: string;
  createdAt: number;
}

/** Every message of a DLQ, read from the simulator page by page as a client would. */
async function allMessages(h: Harness, path: string): Promise<Message[]> {
  const out: Message[] = [];
  let cursor: string | undefined;
  do {
    const page = await upstream<{ messages: Message[]; cursor?: string }>(
      h,
      `${path}?count=100${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      'qstash',
    );
    out.push(...page.messages);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return out;
}

const countBy = (
  messages: readonly Message[],
  key: (m: Message) => string | undefined,
): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const m of messages) {
    const k = key(m);
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
};

const up = (s: ParsedSample[], labels: Record<string, string>): number | undefined =>
  valueOf(s, 'upstash_up', labels);

describe('QStash delivery through the exporter', () => {
  test('outcomes, hourly figures, limits and both DLQs by value, and no message secret anywhere', async () => {
    const h = await start();
    const s = await eventually('every source polled', async () => {
      const { samples } = await h.scrape();
      const ok = [DLQ_LABELS, WORKFLOW_LABELS].every((l) => up(samples, l) === 1);
      const stats = valueOf(samples, 'upstash_qstash_requests_last_hour', {
        account: 'main',
        qstash_id: EU!.id,
      });
      return ok && stats !== undefined ? samples : undefined;
    });

    // qstash_stats: each state's sum of the last hour, as the body has it.
    type Points = { x: string; y: number }[];
    const stats = await upstream<{
      daily_qstash_messages: { id: string; data_points: Points }[];
      daily_workflow_messages: { id: string; data_points: Points }[];
      daily_used: Points;
      daily_used_workflow: Points;
    }>(h, `/v2/qstash/stats/${EU!.id}`, 'management');
    const sum = (points: Points): number => points.reduce((total, p) => total + p.y, 0);
    const instance = { account: 'main', qstash_id: EU!.id };
    for (const [field, metric] of [
      ['daily_qstash_messages', 'upstash_qstash_messages_last_hour'],
      ['daily_workflow_messages', 'upstash_qstash_workflow_messages_last_hour'],
    ] as const) {
      expect(stats[field].map((e) => e.id).sort()).toEqual(
        s
          .filter((x) => x.name === metric && x.labels.qstash_id === EU!.id)
          .map((x) => x.labels.state)
          .sort(),
      );
      for (const { id, data_points } of stats[field])
        expect(valueOf(s, metric, { ...instance, state: id }), `${metric} ${id}`).toBe(sum(data_points));
    }
    expect(stats.daily_qstash_messages.map((e) => e.id)).toEqual(['delivered', 'retry', 'failed', 'error']);
    expect(valueOf(s, 'upstash_qstash_requests_last_hour', instance)).toBe(sum(stats.daily_used));
    expect(valueOf(s, 'upstash_qstash_workflow_requests_last_hour', instance)).toBe(
      sum(stats.daily_used_workflow),
    );
    expect(valueOf(s, 'upstash_qstash_daily_workflow_runs', instance)).toBeDefined();
    expect(valueOf(s, 'upstash_qstash_daily_workflow_messages', instance)).toBeDefined();

    // qstash_users: every limit of 9.1, in base units, and the settings.
    const [user] = await upstream<Record<string, unknown>[]>(h, '/v2/qstash/users', 'management');
    expect(valueOf(s, 'upstash_qstash_max_requests_per_day_hard', instance)).toBe(
      user!.max_requests_per_day_hard,
    );
    expect(valueOf(s, 'upstash_qstash_max_bandwidth_bytes_per_second', instance)).toBe(
      user!.max_bandwidth_per_second,
    );
    expect(valueOf(s, 'upstash_qstash_max_parallelism_per_endpoint', instance)).toBe(user!.max_parallelism);
    expect(valueOf(s, 'upstash_qstash_max_endpoints_per_url_group', instance)).toBe(
      user!.max_endpoints_per_topic,
    );
    expect(valueOf(s, 'upstash_qstash_max_retries', instance)).toBe(user!.max_retries);
    expect(valueOf(s, 'upstash_qstash_dlq_retention_seconds', instance)).toBe(
      (user!.max_dlq_retention_time_milis as number) / 1000,
    );
    expect(valueOf(s, 'upstash_qstash_max_delay_seconds', instance)).toBe(user!.max_delay);
    expect(valueOf(s, 'upstash_qstash_max_request_timeout_seconds', instance)).toBe(user!.timeout);
    expect(valueOf(s, 'upstash_qstash_feature_enabled', { ...instance, feature: 'native_prometheus' })).toBe(
      0,
    );
    expect(valueOf(s, 'upstash_qstash_feature_enabled', { ...instance, feature: 'active' })).toBe(1);

    // The DLQ: everything read (a few hundred messages, so several pages), grouped.
    const messages = await allMessages(h, '/v2/dlq');
    expect(messages.length).toBeGreaterThan(200);
    const account = { account: 'eu' };
    expect(valueOf(s, 'upstash_qstash_dlq_scanned_messages', account)).toBe(messages.length);
    expect(valueOf(s, 'upstash_qstash_dlq_scan_complete', account)).toBe(1);
    expect(valueOf(s, 'upstash_qstash_dlq_oldest_message_timestamp_seconds', account)).toBe(
      Math.min(...messages.map((m) => m.createdAt)) / 1000,
    );
    for (const [metric, label, key] of [
      ['upstash_qstash_dlq_messages_by_queue', 'queue', (m: Message) => m.queueName],
      ['upstash_qstash_dlq_messages_by_url_group', 'url_group', (m: Message) => m.topicName],
      [
        'upstash_qstash_dlq_messages_by_response_status',
        'code',
        (m: Message) => m.responseStatus?.toString(),
      ],
    ] as const) {
      const counts = countBy(messages, key);
      expect(counts.size).toBeGreaterThan(1);
      expect(s.filter((x) => x.name === metric)).toHaveLength(counts.size);
      for (const [value, count] of counts)
        expect(valueOf(s, metric, { ...account, [label]: value })).toBe(count);
    }
    const runs = await allMessages(h, '/v2/workflows/dlq');
    expect(valueOf(s, 'upstash_qstash_workflow_dlq_scanned_messages', account)).toBe(runs.length);
    expect(valueOf(s, 'upstash_qstash_workflow_dlq_scan_complete', account)).toBe(1);
    for (const [code, count] of countBy(runs, (m) => m.responseStatus?.toString()))
      expect(
        valueOf(s, 'upstash_qstash_workflow_dlq_messages_by_response_status', { ...account, code }),
      ).toBe(count);
    // Failure callback states as the simulator spells them, `none` for a run without one; none failed.
    const callbacks = countBy(runs, (m) => m.failureFunctionState ?? 'none');
    expect([...callbacks.keys()]).toEqual(expect.arrayContaining(['CALLBACK_SUCCESS', 'none']));
    for (const [state, count] of callbacks)
      expect(valueOf(s, 'upstash_workflow_dlq_failure_callbacks', { ...account, state })).toBe(count);
    expect(valueOf(s, 'upstash_workflow_dlq_failure_callbacks', { ...account, state: 'CALLBACK_FAIL' })).toBe(
      0,
    );

    // Nothing of a message but those four fields shows: not in /metrics, the landing page or the
    // debug logs.
    const landing = await h.get('/');
    expect(landing.body).toContain('workflow_dlq');
    expect(leakedSecret((await h.get('/metrics')).body)).toBeUndefined();
    expect(leakedSecret(landing.body)).toBeUndefined();
    expect(h.logs.some((line) => line.includes('"source":"dlq"'))).toBe(true);
    expect(leakedSecret(h.logs.join(''))).toBeUndefined();
  });

  test('failed failure callbacks: counted by state, said on the landing page until they leave the DLQ', async () => {
    const h = await start();
    h.sim.setDlq('workflow_dlq', { failedCallbacks: true });
    const failed = { account: 'eu', state: 'CALLBACK_FAIL' };
    const s = await eventually('the failed callbacks polled', async () => {
      const { samples } = await h.scrape();
      return (valueOf(samples, 'upstash_workflow_dlq_failure_callbacks', failed) ?? 0) > 0
        ? samples
        : undefined;
    });
    const runs = await allMessages(h, '/v2/workflows/dlq');
    const count = runs.filter((m) => m.failureFunctionState === 'CALLBACK_FAIL').length;
    expect(valueOf(s, 'upstash_workflow_dlq_failure_callbacks', failed)).toBe(count);
    const warning = `${count} failed workflow runs whose failure callback failed (CALLBACK_FAIL)`;
    expect((await h.get('/')).body).toContain(warning);

    h.sim.setDlq('workflow_dlq', null);
    await eventually('the failed callbacks gone', async () => {
      const { samples } = await h.scrape();
      return valueOf(samples, 'upstash_workflow_dlq_failure_callbacks', failed) === 0 ? true : undefined;
    });
    expect((await h.get('/')).body).not.toContain('whose failure callback failed');
  });

  test('max_dlq_pages: the scan stops there and says it is not complete', async () => {
    const h = await start({ limits: { maxDlqPages: 2 } });
    const s = await eventually('the DLQs polled', async () => {
      const { samples } = await h.scrape();
      return up(samples, DLQ_LABELS) === 1 && up(samples, WORKFLOW_LABELS) === 1 ? samples : undefined;
    });
    for (const prefix of ['dlq', 'workflow_dlq']) {
      expect(valueOf(s, `upstash_qstash_${prefix}_scanned_messages`, { account: 'eu' })).toBe(200);
      expect(valueOf(s, `upstash_qstash_${prefix}_scan_complete`, { account: 'eu' })).toBe(0);
    }
    // Two pages per poll, every one counted in the request metrics.
    const polls =
      valueOf(s, 'upstash_exporter_polls_total', DLQ_LABELS)! +
      valueOf(s, 'upstash_exporter_polls_total', WORKFLOW_LABELS)!;
    expect(h.sim.requests('dlq') + h.sim.requests('workflow_dlq')).toBeGreaterThanOrEqual(2 * polls - 2);
  });

  test('a grouping over its cap keeps the largest and counts the rest as truncated label values', async () => {
    const h = await start({ limits: { maxQueues: 1, maxUrlGroups: 1 } });
    const s = await eventually('the DLQ polled', async () => {
      const { samples } = await h.scrape();
      return up(samples, DLQ_LABELS) === 1 ? samples : undefined;
    });
    const messages = await allMessages(h, '/v2/dlq');
    const queues = countBy(messages, (m) => m.queueName);
    const groups = countBy(messages, (m) => m.topicName);
    const largest = (counts: Map<string, number>): number => Math.max(...counts.values());
    const kept = (metric: string) => s.filter((x) => x.name === metric).map((x) => x.value);
    expect(kept('upstash_qstash_dlq_messages_by_queue')).toEqual([largest(queues)]);
    expect(kept('upstash_qstash_dlq_messages_by_url_group')).toEqual([largest(groups)]);
    // Each finished poll of the frozen DLQ leaves the same values out (a poll may be in flight).
    const perPoll = queues.size - 1 + groups.size - 1;
    const polls = valueOf(s, 'upstash_exporter_polls_total', DLQ_LABELS)!;
    const truncated = valueOf(s, 'upstash_exporter_label_values_truncated_total', DLQ_LABELS)!;
    expect(perPoll).toBeGreaterThan(1);
    expect(truncated % perPoll).toBe(0);
    expect(truncated).toBeGreaterThanOrEqual(perPoll);
    expect(truncated).toBeLessThanOrEqual(polls * perPoll);
    expect(valueOf(s, 'upstash_exporter_label_values_truncated_total', WORKFLOW_LABELS)).toBe(0);
  });

  test('a failed middle page or a repeated cursor fails the poll and keeps the last good values', async () => {
    const h = await start({ intervalSeconds: 1 });
    const healthy = await eventually('the DLQ polled', async () => {
      const { samples } = await h.scrape();
      return up(samples, DLQ_LABELS) === 1 ? samples : undefined;
    });
    const scanned = valueOf(healthy, 'upstash_qstash_dlq_scanned_messages', { account: 'eu' });
    expect(scanned).toBeGreaterThan(200);
    for (const [behaviour, reason] of [
      [{ failPage: 2 }, 'server_error'],
      [{ repeatCursorPage: 2 }, 'invalid_response'],
    ] as const) {
      h.sim.setDlq('dlq', behaviour);
      const failed = await eventually(`the DLQ poll failed with ${reason}`, async () => {
        const { samples } = await h.scrape();
        const count = valueOf(samples, 'upstash_exporter_poll_failures_total', { ...DLQ_LABELS, reason });
        return count !== undefined && count >= 1 && up(samples, DLQ_LABELS) === 0 ? samples : undefined;
      });
      // Not a half report: the last good scan stays, whole.
      expect(valueOf(failed, 'upstash_qstash_dlq_scanned_messages', { account: 'eu' })).toBe(scanned);
      expect(valueOf(failed, 'upstash_qstash_dlq_scan_complete', { account: 'eu' })).toBe(1);
      h.sim.setDlq('dlq', null);
      await eventually('the DLQ recovered', async () => {
        const { samples } = await h.scrape();
        return up(samples, DLQ_LABELS) === 1 ? true : undefined;
      });
    }
    expect(h.logs.some((line) => line.includes('repeats the cursor'))).toBe(true);
    expect(leakedSecret(h.logs.join(''))).toBeUndefined();
  });

  test('the DLQs run on dlq_interval, not on the entry interval', async () => {
    const from = Date.now();
    const h = await start({
      intervalSeconds: 1,
      dlqIntervalSeconds: 30,
      qstashSources: ['queues', 'dlq'],
    });
    await eventually('queues polled a few times', async () => {
      const { samples } = await h.scrape();
      const polls = valueOf(samples, 'upstash_exporter_polls_total', { ...DLQ_LABELS, source: 'queues' });
      return polls !== undefined && polls >= 4 ? true : undefined;
    });
    const { samples } = await h.scrape();
    // The start-up poll, and one more for each 30 s tick (at :00 and :30) in the time this took,
    // however long a busy machine made it; the queues polled at least 4 times meanwhile.
    const ticks = Math.floor(Date.now() / 30_000) - Math.floor(from / 30_000);
    expect(valueOf(samples, 'upstash_exporter_polls_total', DLQ_LABELS)).toBeLessThanOrEqual(1 + ticks);
  });
});
