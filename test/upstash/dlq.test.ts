import { afterEach, describe, expect, test } from 'vitest';
import {
  DEMO_DLQ_CALLER_IP,
  DEMO_DLQ_SECRET,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { fetchDlq, type DlqList, type DlqMessage } from '../../src/upstash/dlq.js';
import { upstashFailure } from '../helpers/invalid.js';

// fetchDlq against the simulator over real HTTP: the pages, the cursor, the cap, and what a bad
// page does to the whole read. The pager's own rules (page length, null, cursor size) are in
// pager.test.ts.

const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

async function setUp(options: SimulatorOptions = {}) {
  const paths: string[] = [];
  const sim = await startSimulator({
    frozen: true,
    onRequest: (route, path) => {
      if (route === 'dlq' || route === 'workflow_dlq') paths.push(path);
    },
    ...options,
  });
  running.push(sim);
  const client = new UpstashClient({ timeoutMs: 2000, retries: 0, concurrency: 2, userAgent: 'test' });
  // Every page's messages, collected here (the exporter counts them page by page instead).
  const read = async (list: DlqList, maxPages = 10, deadline?: number, minPagingMs?: number) => {
    const messages: DlqMessage[] = [];
    const scan = await fetchDlq(
      client,
      list,
      {
        baseUrl: sim.url,
        credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } },
        maxPages,
        deadline,
        minPagingMs,
      },
      (page) => messages.push(...page),
    );
    return { messages, ...scan };
  };
  return { sim, paths, read };
}

describe('fetchDlq', () => {
  test('reads every page, each asking for 100 and following the cursor of the one before, to a page without one', async () => {
    const { sim, paths, read } = await setUp();
    sim.setDlq('dlq', { messages: 250 });
    const scan = await read('dlq');
    expect(scan).toMatchObject({ complete: true, pages: 3 });
    expect(scan.messages).toHaveLength(250);
    expect(paths).toHaveLength(3);
    expect(paths[0]).toBe('/v2/dlq?count=100');
    const cursors = paths.slice(1).map((p) => new URL(p, sim.url).searchParams);
    for (const query of cursors) expect(query.get('count')).toBe('100');
    // Each cursor is the creation time of that page's first message.
    expect(cursors.map((q) => Number(q.get('cursor')))).toEqual([
      scan.messages[100]!.createdAt,
      scan.messages[200]!.createdAt,
    ]);
  });

  test('only queue, URL group, status, creation time and callback state are kept of a message: never its URL, body, headers, labels or caller IP', async () => {
    const { read } = await setUp();
    for (const list of ['dlq', 'workflow_dlq'] as const) {
      const scan = await read(list);
      expect(scan.messages.length).toBeGreaterThan(200);
      const kept = JSON.stringify(scan);
      expect(kept).not.toContain(DEMO_DLQ_SECRET);
      expect(kept).not.toContain(DEMO_DLQ_CALLER_IP);
      expect(kept).not.toContain('example.com');
      const keys = new Set(scan.messages.flatMap((m) => Object.keys(m)));
      expect([...keys].sort()).toEqual(
        list === 'dlq'
          ? ['createdAt', 'queueName', 'responseStatus', 'topicName']
          : ['createdAt', 'failureFunctionState', 'responseStatus'],
      );
    }
  });

  test('stops at maxPages and says the scan is not complete', async () => {
    const { paths, read } = await setUp();
    const scan = await read('workflow_dlq', 2);
    expect(scan).toMatchObject({ complete: false, pages: 2 });
    expect(scan.messages).toHaveLength(200);
    expect(paths).toHaveLength(2);
  });

  test('an empty DLQ is one request and a complete scan', async () => {
    const { sim, paths, read } = await setUp();
    sim.setDlq('dlq', { messages: 0 });
    expect(await read('dlq')).toEqual({ messages: [], complete: true, pages: 1, rejected: [] });
    expect(paths).toEqual(['/v2/dlq?count=100']);
  });

  test('a cursor that repeats ends the read as invalid_response, without another request', async () => {
    const { sim, paths, read } = await setUp();
    sim.setDlq('dlq', { messages: 400, repeatCursorPage: 2 });
    const error = await upstashFailure(read('dlq'));
    expect(error.reason).toBe('invalid_response');
    expect(error.message).toContain('repeats the cursor');
    expect(paths).toHaveLength(2);
  });

  test('a failed middle page fails the whole read, and the pages after it are not asked for', async () => {
    const { sim, paths, read } = await setUp();
    sim.setDlq('workflow_dlq', { messages: 400, failPage: 2 });
    expect((await upstashFailure(read('workflow_dlq'))).reason).toBe('server_error');
    expect(paths).toHaveLength(2);
  });

  test('no page starts after the deadline: the read fails as a timeout', async () => {
    const { read, paths } = await setUp();
    const error = await upstashFailure(read('dlq', 10, Date.now() - 1, 0));
    expect(error.reason).toBe('timeout');
    expect(paths).toHaveLength(1);
  });

  test('a deadline a moment away (a start-up poll just before a tick) still leaves a minute to page', async () => {
    const { read, paths } = await setUp();
    const scan = await read('dlq', 10, Date.now() - 1);
    expect(scan.complete).toBe(true);
    expect(paths.length).toBeGreaterThan(2);
  });

  // A message field of the wrong type follows the one tolerance rule of listings: it
  // is left out of that message alone and named as rejected; the scan still counts the message.
  test('a message with a string status: that field is left out and rejected, the read goes on', async () => {
    const { sim, read } = await setUp();
    sim.setFault('dlq', {
      kind: 'body',
      body: '{"messages":[{"responseStatus":"500","createdAt":5},{"responseStatus":1e400,"queueName":"q"}]}',
      contentType: 'application/json',
    });
    const scan = await read('dlq');
    expect(scan.messages.map((m) => [m.responseStatus, m.createdAt, m.queueName])).toEqual([
      [undefined, 5, undefined],
      [undefined, undefined, 'q'],
    ]);
    expect(scan.rejected).toEqual(['responseStatus']);
  });

  test.each([
    ['a page that is an array', '[1, 2]'],
    ['a message that is not an object', '{"messages":["500"]}'],
    ['a cursor that is a number', '{"messages":[],"cursor":5}'],
  ])('%s → invalid_response', async (_, body) => {
    const { sim, read } = await setUp();
    sim.setFault('dlq', { kind: 'body', body, contentType: 'application/json' });
    expect((await upstashFailure(read('dlq'))).reason).toBe('invalid_response');
  });

  // The paging cases against the fake Upstash's DLQ route (the pager's own tests cover each rule).
  test('a page of 2,000 messages for count=100 is invalid_response: none of it is counted', async () => {
    const { sim, read } = await setUp();
    const messages = Array.from({ length: 2000 }, (_, i) => ({ queueName: 'q', createdAt: i }));
    sim.setFault('dlq', {
      kind: 'body',
      body: JSON.stringify({ messages, cursor: 'next' }),
      contentType: 'application/json',
    });
    const error = await upstashFailure(read('dlq'));
    expect(error.reason).toBe('invalid_response');
    expect(error.message).toContain('more than the 100 asked for');
  });

  test.each([
    ['"cursor": null ends paging', '{"messages":[{"queueName":"q","createdAt":5}],"cursor":null}', 1],
    ['"messages": null is an empty page', '{"messages":null,"cursor":null}', 0],
  ])('%s', async (_, body, count) => {
    const { sim, paths, read } = await setUp();
    sim.setFault('workflow_dlq', { kind: 'body', body, contentType: 'application/json' });
    const scan = await read('workflow_dlq');
    expect(scan).toMatchObject({ complete: true, pages: 1 });
    expect(scan.messages).toHaveLength(count);
    expect(paths).toHaveLength(1);
  });

  test('a 200,000-character cursor is invalid_response (not sent: no 431), in a short message', async () => {
    const { sim, paths, read } = await setUp();
    sim.setFault('dlq', {
      kind: 'body',
      body: JSON.stringify({ messages: [], cursor: 'c'.repeat(200_000) }),
      contentType: 'application/json',
    });
    const error = await upstashFailure(read('dlq'));
    expect(error.reason).toBe('invalid_response');
    expect(error.message.length).toBeLessThan(500);
    expect(paths).toHaveLength(1);
  });

  test('a hanging page fails the read as a timeout', async () => {
    const { sim } = await setUp();
    sim.setFault('workflow_dlq', { kind: 'hang' });
    const client = new UpstashClient({ timeoutMs: 200, retries: 0, concurrency: 1, userAgent: 'test' });
    const error = await upstashFailure(
      fetchDlq(
        client,
        'workflow_dlq',
        {
          baseUrl: sim.url,
          credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } },
          maxPages: 10,
        },
        () => undefined,
      ),
    );
    expect(error.reason).toBe('timeout');
    await client.close();
  });
});
