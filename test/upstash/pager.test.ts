import { afterEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { UpstashClient } from '../../src/upstash/client.js';
import {
  MAX_CURSOR_BYTES,
  readPages,
  scanPages,
  type PagedList,
  type PagerTarget,
} from '../../src/upstash/pager.js';
import { optional, optionalText } from '../../src/upstash/tolerance.js';
import { upstashFailure } from '../helpers/invalid.js';
import { sendJson, startLocalServer, type LocalServer } from './local-server.js';

// The one pager of every paged source, over real HTTP against a server that answers each request
// with the next body of a script: what a page may hold, what ends paging, and what fails it. The
// DLQs' own cases (the simulator's pages, the cap, a failed middle page, the deadline) are in
// dlq.test.ts.

const SECRET = 'pager-secret-Z9';

// A list of events as QStash's logs are paged: `logs` or `events`, a few fields named, a secret that
// must be dropped at parsing.
const entry = z.object({ id: optionalText, time: optional(z.number()) });
const EVENTS: PagedList<typeof entry, { id?: string | undefined; time?: number | undefined }> = {
  path: '/v2/logs',
  listFields: ['logs', 'events'],
  count: 3,
  query: { trimBody: -1 },
  entry,
  toEntry: (e) => e,
};

const servers: LocalServer[] = [];
const clients: UpstashClient[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** A server answering request n with `bodies[n]` (JSON), and a target on it. */
async function setUp(bodies: readonly unknown[], target: Partial<PagerTarget> = {}) {
  const server = await startLocalServer((_req, res, index) => {
    sendJson(res, 200, bodies[index] ?? { logs: [] });
  });
  servers.push(server);
  const client = new UpstashClient({ timeoutMs: 2000, retries: 0, concurrency: 1, userAgent: 'test' });
  clients.push(client);
  const full: PagerTarget = {
    baseUrl: server.url,
    credentials: { api: 'qstash', token: { reveal: () => 'token' } },
    maxPages: 10,
    ...target,
  };
  return { server, client, target: full, paths: () => server.requests.map((r) => r.path) };
}

/** Every page's entries, read to the end. */
async function all(client: UpstashClient, target: PagerTarget, list = EVENTS) {
  const pages = [];
  for await (const page of readPages(client, list, target)) pages.push(page);
  return pages;
}

const events = (...ids: string[]) =>
  ids.map((id, i) => ({ id, time: i, body: SECRET, header: { a: SECRET } }));

describe('readPages', () => {
  test('asks for count, the list query and the read query, then follows each cursor; only the fields named are kept', async () => {
    const { client, target, paths } = await setUp(
      [
        { cursor: 'c1', logs: events('a', 'b', 'c') },
        { cursor: 'c/2 &', events: events('d') },
        { logs: events('e') },
      ],
      { query: { state: 'ERROR', fromDate: 1700000000000 } },
    );
    const pages = await all(client, target);
    expect(pages.map((p) => [p.number, p.last, p.entries.map((e) => e.id)])).toEqual([
      [1, false, ['a', 'b', 'c']],
      [2, false, ['d']],
      [3, true, ['e']],
    ]);
    expect(JSON.stringify(pages)).not.toContain(SECRET);
    const first = '/v2/logs?count=3&trimBody=-1&state=ERROR&fromDate=1700000000000';
    expect(paths()).toEqual([first, `${first}&cursor=c1`, `${first}&cursor=c%2F2%20%26`]);
  });

  test('sendCount false: no count is sent, yet a page beyond it still fails', async () => {
    const list = { ...EVENTS, sendCount: false, query: undefined };
    const { client, target, paths } = await setUp([
      { cursor: 'x', logs: events('a') },
      { logs: events('b') },
    ]);
    expect((await all(client, target, list)).length).toBe(2);
    expect(paths()).toEqual(['/v2/logs', '/v2/logs?cursor=x']);
    const long = await setUp([{ logs: events('a', 'b', 'c', 'd') }]);
    expect((await upstashFailure(all(long.client, long.target, list))).reason).toBe('invalid_response');
  });

  test('a page longer than the count asked for is invalid_response, and no page after it is asked for', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => String(i));
    const { client, target, paths } = await setUp([
      { cursor: 'c1', logs: events('a') },
      { cursor: 'c2', logs: events(...many) },
    ]);
    const seen: number[] = [];
    const error = await upstashFailure(
      (async () => {
        for await (const page of readPages(client, EVENTS, target)) seen.push(page.number);
      })(),
    );
    expect(error.reason).toBe('invalid_response');
    expect(error.message).toContain('page 2 holds 2000 entries, more than the 3 asked for');
    // The long page never reached the consumer.
    expect(seen).toEqual([1]);
    expect(paths()).toHaveLength(2);
  });

  test.each([
    ['a null cursor ends paging', { cursor: null, logs: events('a') }, ['a']],
    ['an empty cursor ends paging', { cursor: '', logs: events('a') }, ['a']],
    ['a null list is an empty page', { cursor: null, logs: null }, []],
    ['a null list beside the other name', { logs: null, events: events('b') }, ['b']],
    ['no list at all is an empty page', {}, []],
  ])('%s', async (_, body, ids) => {
    const { client, target, paths } = await setUp([body]);
    const pages = await all(client, target);
    expect(pages.map((p) => [p.last, p.entries.map((e) => e.id)])).toEqual([[true, ids]]);
    expect(paths()).toHaveLength(1);
  });

  test('a null list on a middle page is an empty page, and paging goes on', async () => {
    const { client, target } = await setUp([{ cursor: 'c1', logs: null }, { logs: events('a') }]);
    expect((await all(client, target)).map((p) => p.entries.length)).toEqual([0, 1]);
  });

  test.each([
    ['a body that is an array', [1, 2]],
    ['a list that is an object', { logs: { a: 1 } }],
    ['a cursor that is a number', { logs: [], cursor: 5 }],
    ['an entry that is not an object', { logs: ['x'] }],
  ])('%s → invalid_response', async (_, body) => {
    const { client, target } = await setUp([body]);
    expect((await upstashFailure(all(client, target))).reason).toBe('invalid_response');
  });

  test('a bad entry of the second list field is named by that field', async () => {
    const { client, target } = await setUp([{ logs: null, events: [{ id: 'a' }, 'x'] }]);
    expect((await upstashFailure(all(client, target))).message).toContain('events[1]');
  });

  test('a cursor longer than 4 KiB is invalid_response: it is never sent, and the message stays short', async () => {
    const huge = 'k'.repeat(200_000);
    const { client, target, paths } = await setUp([{ cursor: huge, logs: events('a') }]);
    const error = await upstashFailure(all(client, target));
    expect(error.reason).toBe('invalid_response');
    expect(error.message).toContain(`cursor longer than ${MAX_CURSOR_BYTES} bytes`);
    expect(error.message.length).toBeLessThan(500);
    expect(paths()).toHaveLength(1);
  });

  test('a cursor of exactly 4 KiB (in UTF-8 bytes) is followed; one byte more is not', async () => {
    const exact = 'é'.repeat(MAX_CURSOR_BYTES / 2);
    const ok = await setUp([{ cursor: exact, logs: [] }, { logs: [] }]);
    expect(await all(ok.client, ok.target)).toHaveLength(2);
    expect(new URL(ok.paths()[1]!, ok.server.url).searchParams.get('cursor')).toBe(exact);
    const over = await setUp([{ cursor: `${exact}x`, logs: [] }]);
    expect((await upstashFailure(all(over.client, over.target))).reason).toBe('invalid_response');
  });

  test('a cursor that repeats an earlier one (A, B, A) is invalid_response before that page is handed over', async () => {
    const { client, target, paths } = await setUp([
      { cursor: 'A', logs: events('a') },
      { cursor: 'B', logs: events('b') },
      { cursor: 'A', logs: events('c') },
    ]);
    const seen: number[] = [];
    const error = await upstashFailure(
      (async () => {
        for await (const page of readPages(client, EVENTS, target)) seen.push(page.number);
      })(),
    );
    expect(error.message).toContain('page 3 repeats the cursor of an earlier page');
    expect(seen).toEqual([1, 2]);
    expect(paths()).toHaveLength(3);
  });

  test('a consumer that stops early makes no further request', async () => {
    const { client, target, paths } = await setUp([
      { cursor: 'c1', logs: events('a') },
      { cursor: 'c2', logs: events('b') },
    ]);
    for await (const page of readPages(client, EVENTS, target)) if (page.number === 1) break;
    expect(paths()).toHaveLength(1);
  });

  test('no page after the first starts past the deadline: timeout', async () => {
    const { client, target, paths } = await setUp([{ cursor: 'c1', logs: [] }], {
      deadline: Date.now() - 1,
      minPagingMs: 0,
    });
    expect((await upstashFailure(all(client, target))).reason).toBe('timeout');
    expect(paths()).toHaveLength(1);
  });

  test('a deadline already past still leaves minPagingMs to page for', async () => {
    const { client, target } = await setUp([{ cursor: 'c1', logs: [] }, { logs: [] }]);
    vi.useFakeTimers({ toFake: ['Date'] });
    const read = all(client, { ...target, deadline: Date.now() - 1, minPagingMs: 1000 });
    expect((await read).map((p) => p.number)).toEqual([1, 2]);
  });

  test('the deadline reached exactly stops paging, and the message names the pages read and the list', async () => {
    const { server, client, target, paths } = await setUp([
      { cursor: 'c1', logs: [] },
      { cursor: 'c2', logs: [] },
      { logs: [] },
    ]);
    // Only Date is faked: the clock stands still but for the step the consumer makes after page 2.
    vi.useFakeTimers({ toFake: ['Date'] });
    const deadline = Date.now() + 1;
    const error = await upstashFailure(
      (async () => {
        for await (const page of readPages(client, EVENTS, { ...target, deadline, minPagingMs: 0 }))
          if (page.number === 2) vi.setSystemTime(deadline);
      })(),
    );
    expect(error.reason).toBe('timeout');
    expect(error.message).toBe(
      `Paging stopped at the poll's deadline after 2 pages: GET ${server.url}/v2/logs`,
    );
    expect(paths()).toHaveLength(2);
  });
});

describe('scanPages', () => {
  const pagesOf = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      logs: [{ id: String(i), time: 'not a number' }],
      ...(i < n - 1 && { cursor: `c${i}` }),
    }));

  test('to the last page: every page handed over in turn, the rejected fields of all of them', async () => {
    const { client, target } = await setUp(pagesOf(3));
    const ids: (string | undefined)[] = [];
    const end = await scanPages(client, EVENTS, target, (page) => {
      ids.push(...page.entries.map((e) => e.id));
      return 'more';
    });
    expect(end).toEqual({ pages: 3, end: 'last_page', rejected: ['time'] });
    expect(ids).toEqual(['0', '1', '2']);
  });

  test('at the page cap while cursors still come back', async () => {
    const { client, target, paths } = await setUp(pagesOf(5), { maxPages: 2 });
    expect(await scanPages(client, EVENTS, target, () => 'more')).toEqual({
      pages: 2,
      end: 'page_cap',
      rejected: ['time'],
    });
    expect(paths()).toHaveLength(2);
  });

  test('stopped by the consumer (an event source whose pages went older than its watermark)', async () => {
    const { client, target, paths } = await setUp(pagesOf(5));
    const end = await scanPages(client, EVENTS, target, (page) => (page.number === 2 ? 'stop' : 'more'));
    expect(end).toEqual({ pages: 2, end: 'stopped', rejected: ['time'] });
    expect(paths()).toHaveLength(2);
  });

  test('a stop on the last page is still the end of the list', async () => {
    const { client, target } = await setUp(pagesOf(1));
    expect(await scanPages(client, EVENTS, target, () => 'stop')).toMatchObject({
      pages: 1,
      end: 'last_page',
    });
  });
});
