import { afterEach, describe, expect, test } from 'vitest';
import { UpstashClient } from '../../src/upstash/client.js';
import { scanEvents } from '../../src/upstash/event-paths.js';
import type { Page } from '../../src/upstash/pager.js';
import { QSTASH_LOGS, type LogEvent } from '../../src/upstash/qstash-logs.js';
import { originOf } from '../../src/upstash/url-origin.js';
import { WORKFLOW_RUNS, workflowOf, type WorkflowRun } from '../../src/upstash/workflow-runs.js';
import { startLocalServer, type LocalServer } from './local-server.js';

// The two event lists on literal bodies served over real HTTP: only the named fields come through,
// URLs reduced at parsing, the QStash list under either name, the SDK's path after a 404.

const SECRET = 'tok-SECRET-9f';
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const client = new UpstashClient({ timeoutMs: 2000, retries: 0, concurrency: 2, userAgent: 'test' });
const target = (url: string) => ({
  baseUrl: url,
  credentials: { api: 'qstash' as const, token: { reveal: () => 'qs' } },
  maxPages: 5,
  query: { state: 'ERROR', fromDate: 5 },
});

/** Serves `bodies` by path (`/v2/logs`, …); any other path answers 404. */
async function serve(bodies: Record<string, unknown>): Promise<LocalServer> {
  server = await startLocalServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const body = bodies[path];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  return server;
}

/** Every entry of every page, and how paging ended. */
async function read(list: typeof QSTASH_LOGS | typeof WORKFLOW_RUNS, url: string, sdk = false) {
  const entries: (LogEvent | WorkflowRun)[] = [];
  const onPage = (page: Page<LogEvent | WorkflowRun>) => {
    entries.push(...page.entries);
    return 'more' as const;
  };
  const paging =
    list === QSTASH_LOGS
      ? await scanEvents(client, QSTASH_LOGS, sdk, target(url), onPage)
      : await scanEvents(client, WORKFLOW_RUNS, sdk, target(url), onPage);
  return { entries, paging };
}

/** The message IDs of log events read. */
const ids = (entries: readonly (LogEvent | WorkflowRun)[]) =>
  entries.map((e) => ('messageId' in e ? e.messageId : ''));

describe('event lists', () => {
  test('a log event keeps its named fields only, its URL as its origin', async () => {
    const event = {
      time: 10,
      messageId: 'm1',
      state: 'ERROR',
      url: `https://user:${SECRET}@api.example.com:8443/hook?token=${SECRET}#${SECRET}`,
      queueName: 'orders',
      topicName: '',
      responseStatus: 500,
      header: { Authorization: [SECRET] },
      body: SECRET,
      error: SECRET,
      responseBody: SECRET,
      callerIp: '203.0.113.9',
    };
    const { url } = await serve({ '/v2/logs': { logs: [event] } });
    const { entries, paging } = await read(QSTASH_LOGS, url);
    expect(entries).toEqual([
      {
        time: 10,
        messageId: 'm1',
        state: 'ERROR',
        destination: 'https://api.example.com:8443',
        queueName: 'orders',
        topicName: undefined,
        scheduleId: undefined,
        responseStatus: 500,
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain(SECRET);
    expect(paging).toMatchObject({ end: 'last_page', pages: 1, sdk: false });
    expect(server!.requests[0]!.path).toBe('/v2/logs?count=100&state=ERROR&fromDate=5');
  });

  test('the SDK path after a 404, its list under events', async () => {
    const { url } = await serve({ '/v2/events': { events: [{ time: 1, messageId: 'a' }], cursor: '' } });
    const { entries, paging } = await read(QSTASH_LOGS, url);
    expect(ids(entries)).toEqual(['a']);
    expect(paging.sdk).toBe(true);
    expect(server!.requests.map((r) => r.path.split('?')[0])).toEqual(['/v2/logs', '/v2/events']);
    // Told to use the SDK path, the documented one is not asked.
    await read(QSTASH_LOGS, url, true);
    expect(server!.requests.map((r) => r.path.split('?')[0])).toEqual([
      '/v2/logs',
      '/v2/events',
      '/v2/events',
    ]);
  });

  test('either list name on the documented path; an event without its message ID fails the page', async () => {
    const { url } = await serve({ '/v2/logs': { events: [{ time: 1, messageId: 'b' }] } });
    expect(ids((await read(QSTASH_LOGS, url)).entries)).toEqual(['b']);
    await server!.stop();
    const bad = await serve({ '/v2/logs': { logs: [{ time: 1, messageId: 7 }] } });
    await expect(read(QSTASH_LOGS, bad.url)).rejects.toMatchObject({ reason: 'invalid_response' });
  });

  test('a time that is no number is read as NaN, for the event rule to refuse; the page is read', async () => {
    const { url } = await serve({
      '/v2/logs': {
        logs: [{ time: 'soon', messageId: 'c' }, { messageId: 'd' }, { time: 2.9, messageId: 'e' }],
      },
    });
    const entries = (await read(QSTASH_LOGS, url)).entries as LogEvent[];
    expect(entries.map((e): [string, number] => [e.messageId, e.time])).toEqual([
      ['c', Number.NaN],
      ['d', Number.NaN],
      ['e', 2],
    ]);
  });

  test('a run keeps five fields, its workflow as origin and path; run mode asked, count not sent', async () => {
    const run = {
      workflowRunId: 'r1',
      workflowUrl: `https://u:${SECRET}@app.example.com/api/wf?secret=${SECRET}#x`,
      workflowState: 'RUN_FAILED',
      workflowRunCreatedAt: 100,
      workflowRunCompletedAt: 200,
      workflowRunCallerIp: '198.51.100.1',
      steps: [{ body: SECRET }],
      workflowRunResponse: SECRET,
    };
    const { url } = await serve({ '/v2/workflows/logs': { runs: [run] } });
    const { entries } = await read(WORKFLOW_RUNS, url);
    expect(entries).toEqual([
      {
        workflowRunId: 'r1',
        workflowRunCreatedAt: 100,
        workflowRunCompletedAt: 200,
        workflowState: 'RUN_FAILED',
        workflow: 'https://app.example.com/api/wf',
      },
    ]);
    expect(server!.requests[0]!.path).toBe(
      '/v2/workflows/logs?groupBy=workflowRunId&trimBody=-1&state=ERROR&fromDate=5',
    );
  });

  test('URLs that are no http(s) URL give no label value', () => {
    expect(originOf('not a url')).toBeUndefined();
    expect(originOf(`ftp://x.example.com/${SECRET}`)).toBeUndefined();
    expect(workflowOf(`javascript:${SECRET}`)).toBeUndefined();
    expect(originOf('http://127.0.0.1:80/a')).toBe('http://127.0.0.1');
  });
});
