import { getEventListeners } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { DEMO_QSTASH_TOKEN, startSimulator } from '../../src/demo/simulator.js';
import type { Fault, Simulator, SimulatorOptions } from '../../src/demo/simulator.js';
import {
  MAX_URL_LENGTH,
  UpstashClient,
  parseRetryAfter,
  type ClientOptions,
  type GetOptions,
} from '../../src/upstash/client.js';
import {
  AbortedError,
  HttpStatusError,
  InvalidResponseError,
  NetworkError,
  TimeoutError,
  UpstashError,
} from '../../src/upstash/errors.js';
import type { FailureReason } from '../../src/poller/self-metrics.js';
import { fetchFlowControl } from '../../src/upstash/flow-control.js';
import { sendJson, startLocalServer, type LocalServer } from './local-server.js';

const USER_AGENT = 'upstash-exporter/0.0.0-test (node v20)';
const AUTH = `Bearer ${DEMO_QSTASH_TOKEN}`;
const bearer = (token: string) => ({ api: 'qstash', token: { reveal: () => token } }) as const;
const QSTASH = bearer(DEMO_QSTASH_TOKEN);

const clients: UpstashClient[] = [];
const sims: Simulator[] = [];
const servers: LocalServer[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(sims.splice(0).map((s) => s.stop()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

function client(options: Partial<ClientOptions> = {}): UpstashClient {
  const c = new UpstashClient({
    timeoutMs: 5000,
    retries: 0,
    concurrency: 4,
    userAgent: USER_AGENT,
    random: () => 0, // no backoff waits unless a test asks for them
    ...options,
  });
  clients.push(c);
  return c;
}

async function simulator(options?: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ frozen: true, ...options });
  sims.push(sim);
  return sim;
}

async function server(handler: Parameters<typeof startLocalServer>[0]): Promise<LocalServer> {
  const s = await startLocalServer(handler);
  servers.push(s);
  return s;
}

const flowUrl = (base: string): string => `${base}/v2/flowControl/`;

function get(c: UpstashClient, url: string, extra: Partial<GetOptions> = {}): Promise<unknown> {
  return c.getJson({ url, credentials: QSTASH, ...extra });
}

/** Awaits the promise, expects it to reject, and returns the error. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const result = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(result).toBeInstanceOf(Error);
  return result as Error;
}

/** Expects an UpstashError with this reason, and only one class of it. */
async function failsWith(promise: Promise<unknown>, reason: FailureReason): Promise<UpstashError> {
  const error = await failure(promise);
  if (!(error instanceof UpstashError)) expect.unreachable(`not an UpstashError: ${String(error)}`);
  expect(error.reason).toBe(reason);
  return error;
}

/** Narrows to the HTTP status error, failing the test when it is anything else. */
function statusError(error: Error): HttpStatusError {
  if (!(error instanceof HttpStatusError)) expect.unreachable(`not an HttpStatusError: ${String(error)}`);
  return error;
}

describe('a successful GET', () => {
  test('returns the parsed body; sends Authorization, Accept and a User-Agent naming the exporter', async () => {
    const sim = await simulator();
    const body = (await get(client(), flowUrl(sim.url))) as { flowControls: unknown[] };
    expect(body.flowControls).toHaveLength(6);
    const headers = sim.lastHeaders('flow_control')!;
    expect(headers.authorization).toBe(AUTH);
    expect(headers.accept).toBe('application/json');
    expect(headers['user-agent']).toBe(USER_AGENT);
    expect(headers['user-agent']).toMatch(/^upstash-exporter\//);
  });

  test('keeps the query string of the URL', async () => {
    const s = await server((req, res) => sendJson(res, 200, { path: req.url }));
    expect(await get(client(), `${s.url}/v2/topics?limit=5`)).toEqual({ path: '/v2/topics?limit=5' });
  });

  test.each(['application/json; charset=utf-8', 'application/problem+json', 'APPLICATION/JSON'])(
    'accepts Content-Type %s',
    async (contentType) => {
      const s = await server((_, res) => {
        res.writeHead(200, { 'content-type': contentType });
        res.end('{"ok":true}');
      });
      expect(await get(client(), s.url)).toEqual({ ok: true });
    },
  );

  test('sequential requests reuse one keep-alive connection', async () => {
    const sim = await simulator();
    const c = client();
    for (let i = 0; i < 5; i++) {
      await get(c, flowUrl(sim.url));
      // Polls are seconds apart; a short pause lets undici see the socket idle again.
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(sim.requests('flow_control')).toBe(5);
    expect(sim.connectionsOpened).toBe(1);
  });

  test('back-to-back requests still share a small pool of connections', async () => {
    const sim = await simulator();
    const c = client();
    for (let i = 0; i < 10; i++) await get(c, flowUrl(sim.url));
    expect(sim.requests('flow_control')).toBe(10);
    // undici may open a second socket while the first is finishing its previous response.
    expect(sim.connectionsOpened).toBeLessThanOrEqual(2);
  });

  test('works through an injected dispatcher (MockAgent), reporting the status', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://qstash.example.com')
      .intercept({ path: '/v2/topics', method: 'GET', headers: { authorization: AUTH } })
      .reply(200, [{ name: 'g' }], { headers: { 'content-type': 'application/json' } });
    const codes: string[] = [];
    const c = client({ dispatcher: agent, onRequest: (api, code) => codes.push(`${api} ${code}`) });
    expect(await get(c, 'https://qstash.example.com/v2/topics')).toEqual([{ name: 'g' }]);
    expect(codes).toEqual(['qstash 200']);
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});

describe('each failure maps to exactly one reason', () => {
  test.each([
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [404, 'not_found'],
    [429, 'rate_limited'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [400, 'client_error'],
    [418, 'client_error'],
    [302, 'invalid_response'],
  ] as const)('HTTP %i → %s', async (status, reason) => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status });
    const codes: string[] = [];
    const error = await failsWith(
      get(client({ onRequest: (_, code) => codes.push(code) }), flowUrl(sim.url)),
      reason,
    );
    expect(statusError(error).status).toBe(status);
    expect(error.message).toContain(String(status));
    expect(error.message).toContain(`GET ${flowUrl(sim.url)}`);
    expect(codes).toEqual([String(status)]);
  });

  test('the simulator’s own 401 for a wrong token is unauthorized', async () => {
    const sim = await simulator();
    const error = await failsWith(
      get(client(), flowUrl(sim.url), { credentials: bearer('wrong') }),
      'unauthorized',
    );
    expect(error).toBeInstanceOf(HttpStatusError);
  });

  test('a server that never answers → timeout, and the socket is really closed', async () => {
    const s = await server(() => undefined); // hangs
    const started = performance.now();
    // The server never answers, so only the client's own timer can end the call (a hang would end the
    // test at its timeout instead); timers never fire early, however busy the machine.
    const error = await failsWith(get(client({ timeoutMs: 300 }), s.url), 'timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toMatch(/timed out after 300 ms: GET http:\/\/127\.0\.0\.1:\d+/);
    // The server sees the connection go away (not left hanging in the pool).
    await s.waitForClosedConnections(1);
    expect(s.inFlight).toBe(0);
  });

  test('the simulator hang fault → timeout; retries count as separate attempts', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'hang' });
    const codes: string[] = [];
    // Each attempt must reach the server before its timeout to be counted there: a loopback request
    // takes a millisecond, and the timeout allows a stall of the whole process a thousand times that
    // (200 ms was not enough beside two CPU-bound processes: the server saw 1 request).
    await failsWith(
      get(client({ timeoutMs: 1500, retries: 1, onRequest: (_, c) => codes.push(c) }), flowUrl(sim.url)),
      'timeout',
    );
    expect(sim.requests('flow_control')).toBe(2);
    expect(codes).toEqual(['error', 'error']);
  });

  test('a body that trickles in past the timeout → timeout (the limit covers the whole response)', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'trickle', bytesPerSecond: 50 });
    const error = await failsWith(get(client({ timeoutMs: 400 }), flowUrl(sim.url)), 'timeout');
    expect(error).toBeInstanceOf(TimeoutError);
  });

  test('a connection reset mid-body → network', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'reset' });
    const error = await failsWith(get(client(), flowUrl(sim.url)), 'network');
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain(`GET ${flowUrl(sim.url)}`);
  });

  test('a refused connection (stopped server) → network', async () => {
    const sim = await simulator();
    const url = flowUrl(sim.url);
    await sim.stop();
    const codes: string[] = [];
    const error = await failsWith(get(client({ onRequest: (_, c) => codes.push(c) }), url), 'network');
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toContain('ECONNREFUSED');
    expect(codes).toEqual(['error']);
  });

  test('malformed JSON → invalid_response', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'body', body: '{"flowControls": [' });
    const error = await failsWith(get(client(), flowUrl(sim.url)), 'invalid_response');
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.message).toContain('malformed JSON');
  });

  test('an empty 200 body → invalid_response', async () => {
    const s = await server((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '0' });
      res.end();
    });
    await failsWith(get(client(), s.url), 'invalid_response');
  });

  test('the wrong shape → invalid_response (from the source module)', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'body', body: '{"keys": []}' });
    const error = await failure(fetchFlowControl(client(), { baseUrl: sim.url, credentials: QSTASH }));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toHaveProperty('reason', 'invalid_response');
  });

  test.each(['text/html', 'text/plain', 'application/xml'])(
    'Content-Type %s → invalid_response',
    async (type) => {
      const sim = await simulator();
      sim.setFault('flow_control', { kind: 'content-type', contentType: type });
      const error = await failsWith(get(client(), flowUrl(sim.url)), 'invalid_response');
      expect(error.message).toContain('content type');
    },
  );

  test.each([false, true])(
    'over-size body (chunked: %s) → invalid_response, and the client carries on',
    async (chunked) => {
      const sim = await simulator();
      sim.setFault('flow_control', { kind: 'oversize', bytes: 64 * 1024, chunked, times: 1 });
      const c = client({ maxBodyBytes: 16 * 1024 });
      const error = await failsWith(get(c, flowUrl(sim.url)), 'invalid_response');
      expect(error.message).toContain('body larger than 16384 bytes');
      // The normal body (under the cap) still comes through afterwards.
      expect(await get(c, flowUrl(sim.url))).toHaveProperty('flowControls');
    },
  );

  test('dropping an over-size body unread raises no uncaught stream error', async () => {
    // Regression: destroying the unread body made undici emit an abort error nobody listened to,
    // which would take the whole exporter down (vitest reports it as an unhandled error).
    const s = await server((_, res) => sendJson(res, 200, { pad: 'x'.repeat(10_000) }));
    const c = client({ maxBodyBytes: 5000 });
    for (let i = 0; i < 3; i++) await failsWith(get(c, s.url), 'invalid_response');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.requests).toHaveLength(3);
  });

  test('a huge error or non-JSON body is dropped without an uncaught stream error', async () => {
    const big = 'x'.repeat(300_000);
    const s = await server((_, res, index) => {
      res.writeHead(index % 2 === 0 ? 500 : 200, {
        'content-type': index % 2 === 0 ? 'application/json' : 'text/html',
      });
      res.end(big);
    });
    const c = client();
    await failsWith(get(c, s.url), 'server_error');
    await failsWith(get(c, s.url), 'invalid_response');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.requests).toHaveLength(2);
  });

  test('a body exactly at the cap is accepted', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(100) });
    const s = await server((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body); // chunked, no Content-Length
    });
    expect(await get(client({ maxBodyBytes: Buffer.byteLength(body) }), s.url)).toEqual(JSON.parse(body));
  });

  test('a body without Content-Length is capped by counting', async () => {
    const s = await server((_, res) => {
      // Nothing declared: the server sends far more than the cap in chunks.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"pad":"');
      res.write('x'.repeat(50_000));
      res.end('"}');
    });
    await failsWith(get(client({ maxBodyBytes: 1000 }), s.url), 'invalid_response');
  });

  test('a lying Content-Length, under the cap, before a body far over it: read no further than declared', async () => {
    // Raw HTTP, as node's server would correct the header. The body is framed by what is declared:
    // 500 bytes of an unfinished JSON string are read, the 50,000 after them never are.
    const raw = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n');
        socket.end(`{"pad":"${'x'.repeat(50_000)}"}`);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = raw.address() as AddressInfo;
      const c = client({ maxBodyBytes: 1000 });
      const error = await failsWith(get(c, `http://127.0.0.1:${port}/`), 'invalid_response');
      expect(error.message).toContain('malformed JSON');
      // The client keeps answering: the bytes after the declared body are not read as another response.
      await failsWith(get(c, `http://127.0.0.1:${port}/`), 'invalid_response');
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});

describe('a URL made huge by an upstream value (a cursor, an ID)', () => {
  test('over MAX_URL_LENGTH it is not sent: invalid_response (not a 431 client_error), in a short message', async () => {
    const s = await server((_req, res) => sendJson(res, 200, {}));
    const seen: string[] = [];
    const c = client({ retries: 2, onRequest: (_api, code) => seen.push(code) });
    const url = `${s.url}/v2/redis/stats/${'i'.repeat(200_000)}`;
    const error = await failsWith(get(c, url), 'invalid_response');
    expect(error.message).toContain(`URL longer than ${MAX_URL_LENGTH} characters, not sent`);
    expect(error.message.length).toBeLessThan(1000);
    expect(s.requests).toHaveLength(0);
    expect(seen).toEqual([]);
  });

  test('a long one within it (a 4 KiB cursor, twice over) is sent', async () => {
    const s = await server((_req, res) => sendJson(res, 200, { ok: true }));
    expect(await get(client(), `${s.url}/v2/logs?cursor=${'c'.repeat(8192)}`)).toEqual({ ok: true });
    expect(s.requests).toHaveLength(1);
  });
});

describe('retries', () => {
  test('retries: 2 → three requests on a lasting 503, each reported to onRequest', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status: 503 });
    const seen: string[] = [];
    const c = client({ retries: 2, onRequest: (api, code) => seen.push(`${api}:${code}`) });
    await failsWith(get(c, flowUrl(sim.url)), 'server_error');
    expect(sim.requests('flow_control')).toBe(3);
    expect(seen).toEqual(['qstash:503', 'qstash:503', 'qstash:503']);
  });

  test('a 503 that goes away is retried to success', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status: 503, times: 1 });
    const seen: string[] = [];
    const body = await get(client({ retries: 2, onRequest: (_, code) => seen.push(code) }), flowUrl(sim.url));
    expect(body).toHaveProperty('flowControls');
    expect(seen).toEqual(['503', '200']);
  });

  test.each([401, 403, 404, 400])('HTTP %i is not retried', async (status) => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status });
    await failure(get(client({ retries: 2 }), flowUrl(sim.url)));
    expect(sim.requests('flow_control')).toBe(1);
  });

  test('invalid responses are not retried', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'body', body: 'nope' });
    await failsWith(get(client({ retries: 2 }), flowUrl(sim.url)), 'invalid_response');
    expect(sim.requests('flow_control')).toBe(1);
  });

  test.each<[string, Fault]>([
    ['reset', { kind: 'reset' }],
    ['429 without Retry-After', { kind: 'status', status: 429 }],
  ])('%s is retried', async (_, fault) => {
    const sim = await simulator();
    sim.setFault('flow_control', fault);
    await failure(get(client({ retries: 2 }), flowUrl(sim.url)));
    expect(sim.requests('flow_control')).toBe(3);
  });

  test('a refused connection is retried, each attempt reported as error', async () => {
    const sim = await simulator();
    const url = flowUrl(sim.url);
    await sim.stop();
    const seen: string[] = [];
    await failsWith(get(client({ retries: 2, onRequest: (_, c) => seen.push(c) }), url), 'network');
    expect(seen).toEqual(['error', 'error', 'error']);
  });

  test('backoff grows exponentially with full jitter (random = 1 → 250 ms, then 500 ms)', async () => {
    const s = await server((_, res) => sendJson(res, 503, { error: 'busy' }));
    await failsWith(get(client({ retries: 2, random: () => 1 }), s.url), 'server_error');
    expect(s.requests).toHaveLength(3);
    const [a, b, c] = s.requests.map((r) => r.at) as [number, number, number];
    // Lower bounds only: timers never fire early, but a busy machine may fire them late.
    expect(b - a).toBeGreaterThanOrEqual(240);
    expect(c - b).toBeGreaterThanOrEqual(490);
  });

  test('a backoff that would end past the deadline is not attempted', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status: 503 });
    await failsWith(
      get(client({ retries: 5, random: () => 1 }), flowUrl(sim.url), { deadline: Date.now() + 100 }),
      'server_error',
    );
    expect(sim.requests('flow_control')).toBe(1);
  });

  test('429 with Retry-After: 1 is waited out when the deadline allows', async () => {
    const s = await server((_, res, index) =>
      index === 0
        ? sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '1' })
        : sendJson(res, 200, { ok: 1 }),
    );
    const c = client({ retries: 2, random: () => 1 });
    expect(await get(c, s.url, { deadline: Date.now() + 30_000 })).toEqual({ ok: 1 });
    expect(s.requests).toHaveLength(2);
    // Retry-After, not the 250 ms backoff, decided the wait.
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  test('429 with Retry-After beyond the deadline fails at once as rate_limited, with retryAfterMs', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status: 429, retryAfter: '600' });
    const started = performance.now();
    const error = await failsWith(
      get(client({ retries: 2 }), flowUrl(sim.url), { deadline: Date.now() + 1000 }),
      'rate_limited',
    );
    expect(statusError(error).retryAfterMs).toBe(600_000);
    expect(sim.requests('flow_control')).toBe(1);
    // Did not sit out the 10 minutes: a tenth of them is a margin no busy machine takes.
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  test('429 with Retry-After as an HTTP date is honoured too', async () => {
    const sim = await simulator();
    // Half an hour ahead: whatever the request took, what is left of it is well above 20 minutes.
    const when = new Date(Date.now() + 1_800_000).toUTCString();
    sim.setFault('flow_control', { kind: 'status', status: 429, retryAfter: when });
    const error = await failsWith(
      get(client({ retries: 2 }), flowUrl(sim.url), { deadline: Date.now() + 1000 }),
      'rate_limited',
    );
    const retryAfterMs = statusError(error).retryAfterMs!;
    expect(retryAfterMs).toBeGreaterThan(1_200_000);
    expect(retryAfterMs).toBeLessThanOrEqual(1_800_000);
  });

  test('retryAfterMs is only read from a 429', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status: 503, retryAfter: '7' });
    const error = await failsWith(get(client(), flowUrl(sim.url)), 'server_error');
    expect(statusError(error).retryAfterMs).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2025, 7, 31, 15, 12, 52);

  test.each([
    ['0', 0],
    ['1', 1000],
    ['120', 120_000],
    [' 3 ', 3000],
  ])('delta-seconds %j → %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  test('an HTTP date in the future → the time until then', () => {
    expect(parseRetryAfter('Sun, 31 Aug 2025 15:13:22 GMT', now)).toBe(30_000);
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
  });

  test('an HTTP date in the past → 0', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now)).toBe(0);
  });

  test('the first of repeated headers is used', () => {
    expect(parseRetryAfter(['5', '9'], now)).toBe(5000);
  });

  test.each([undefined, '', '   ', 'soon', 'later please', '1.5', '-1', '1e3', '0x10', '2025-13-45'])(
    'garbage %j → undefined',
    (value) => {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    },
  );
});

describe('concurrency cap', () => {
  const HOLD_MS = 500;

  /**
   * Holds every answer until `n` requests have arrived (none answered before, so `n` were in flight
   * together, however slowly they came), then HOLD_MS more, in which a client that broke its cap
   * would have more in flight.
   */
  function heldUntil(n: number): () => Promise<void> {
    let arrived = 0;
    let open = (): void => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return async () => {
      if (++arrived >= n) open();
      await opened;
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    };
  }

  test('concurrency: 2 → never more than 2 requests in flight at the server', async () => {
    const hold = heldUntil(2);
    const s = await server((_, res) => void hold().then(() => sendJson(res, 200, { ok: true })));
    // Plenty of sockets allowed, so only the client's own cap can hold requests back.
    const c = client({ concurrency: 2, connectionsPerOrigin: 10 });
    const results = await Promise.all(Array.from({ length: 7 }, () => get(c, s.url)));
    expect(results).toHaveLength(7);
    expect(s.requests).toHaveLength(7);
    expect(s.maxInFlight).toBe(2);
  });

  test('the cap is global: two origins together stay within it', async () => {
    let together = 0;
    let maxTogether = 0;
    const hold = heldUntil(2);
    const slow: Parameters<typeof startLocalServer>[0] = (_, res) => {
      together++;
      maxTogether = Math.max(maxTogether, together);
      void hold().then(() => {
        together--;
        sendJson(res, 200, { ok: true });
      });
    };
    const a = await server(slow);
    const b = await server(slow);
    const c = client({ concurrency: 2, connectionsPerOrigin: 10 });
    await Promise.all([a.url, b.url, a.url, b.url, a.url, b.url, a.url, b.url].map((url) => get(c, url)));
    expect(a.requests.length + b.requests.length).toBe(8);
    expect(maxTogether).toBe(2);
  });

  test('a failed request gives its slot back', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status: 500, times: 3 });
    const c = client({ concurrency: 1 });
    for (let i = 0; i < 3; i++) await failsWith(get(c, flowUrl(sim.url)), 'server_error');
    expect(await get(c, flowUrl(sim.url))).toHaveProperty('flowControls');
  });
});

describe('credentials never leak into errors', () => {
  const SECRET = 'qstash_tok_5f2c9e1b7a';

  test.each<[string, Fault | 'refused']>([
    ['401', { kind: 'status', status: 401 }],
    ['500', { kind: 'status', status: 500 }],
    ['429', { kind: 'status', status: 429, retryAfter: '60' }],
    ['hang', { kind: 'hang' }],
    ['reset', { kind: 'reset' }],
    ['malformed JSON', { kind: 'body', body: '{' }],
    ['wrong type', { kind: 'content-type', contentType: 'text/html' }],
    ['oversize', { kind: 'oversize', bytes: 10_000 }],
    ['refused', 'refused'],
  ])('%s', async (_, fault) => {
    const sim = await simulator({ qstashToken: SECRET });
    const url = flowUrl(sim.url);
    if (fault === 'refused') await sim.stop();
    else sim.setFault('flow_control', fault);
    // The hang's request must reach the server before the timeout for its header to be seen there.
    const c = client({ timeoutMs: 1500, maxBodyBytes: 5000 });
    const error = await failure(c.getJson({ url, credentials: bearer(SECRET) }));
    expect(error).toBeInstanceOf(UpstashError);
    if (fault !== 'refused' && fault.kind !== 'status') {
      expect(sim.lastHeaders('flow_control')?.authorization).toBe(`Bearer ${SECRET}`);
    }
    for (const text of [error.message, String(error), error.stack ?? '', inspect(error, { depth: 10 })]) {
      expect(text).not.toContain(SECRET);
    }
  });

  test('the header reaches the server', async () => {
    const sim = await simulator({ qstashToken: SECRET });
    await get(client(), flowUrl(sim.url), { credentials: bearer(SECRET) });
    expect(sim.lastHeaders('flow_control')?.authorization).toBe(`Bearer ${SECRET}`);
  });
});

describe('abort', () => {
  test('aborting a hanging request → AbortedError, not a failure reason', async () => {
    const controller = new AbortController();
    // Hangs, and aborts the call once the request has really arrived.
    const s = await server(() => controller.abort());
    const pending = get(client({ timeoutMs: 10_000, retries: 2 }), s.url, { signal: controller.signal });
    const error = await failure(pending);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).not.toBeInstanceOf(UpstashError);
    expect(error.message).toContain(`GET ${s.url}`);
    expect(s.requests).toHaveLength(1); // no retry after an abort
    await s.waitForClosedConnections(1);
  });

  test('aborting while waiting out a Retry-After → AbortedError at once', async () => {
    const sim = await simulator();
    sim.setFault('flow_control', { kind: 'status', status: 429, retryAfter: '3600' });
    const controller = new AbortController();
    const started = performance.now();
    // Abort shortly after the 429 has come back, while the client sits out the hour.
    const c = client({ retries: 2, onRequest: () => setTimeout(() => controller.abort(), 50) });
    const pending = get(c, flowUrl(sim.url), { signal: controller.signal });
    expect(await failure(pending)).toBeInstanceOf(AbortedError);
    expect(sim.requests('flow_control')).toBe(1);
    // Not the hour: a minute is a margin no busy machine takes.
    expect(performance.now() - started).toBeLessThan(60_000);
  });

  test('an already aborted signal → AbortedError without a request reaching the server', async () => {
    const sim = await simulator();
    const error = await failure(get(client(), flowUrl(sim.url), { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(AbortedError);
    expect(sim.requests('flow_control')).toBe(0);
  });
});

describe('found in review', () => {
  test('a Retry-After beyond an hour is held to an hour', () => {
    expect(parseRetryAfter('9000000000000')).toBe(3_600_000);
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', Date.UTC(2026, 0, 1))).toBe(3_600_000);
    expect(parseRetryAfter('120')).toBe(120_000);
  });

  test('requests leave no listener behind on the long-lived shutdown signal', async () => {
    const sim = await startSimulator();
    sims.push(sim);
    const client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 2, userAgent: USER_AGENT });
    clients.push(client);
    const shutdown = new AbortController();
    for (let i = 0; i < 5; i++) {
      await client.getJson({
        url: `${sim.url}/v2/topics`,
        credentials: QSTASH,
        signal: shutdown.signal,
      });
    }
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  test('a header undici refuses to send is not retried as a network error', async () => {
    const sim = await startSimulator();
    sims.push(sim);
    const client = new UpstashClient({ timeoutMs: 5000, retries: 2, concurrency: 2, userAgent: USER_AGENT });
    clients.push(client);
    const error = await client
      .getJson({ url: `${sim.url}/v2/topics`, credentials: bearer('a\nb') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(sim.requests('url_groups')).toBe(0);
    expect((error as Error).message).not.toContain('a\nb');
  });

  test('requests never sent are not counted: refused by undici, or aborted before they left', async () => {
    const sim = await simulator();
    const codes: string[] = [];
    const c = client({ retries: 2, onRequest: (_, code) => codes.push(code) });
    await c.getJson({ url: `${sim.url}/v2/topics`, credentials: bearer('a\nb') }).catch(() => undefined);
    await get(c, flowUrl(sim.url), { signal: AbortSignal.abort() }).catch(() => undefined);
    expect(codes).toEqual([]);
    expect(sim.requests('url_groups') + sim.requests('flow_control')).toBe(0);
    await get(c, flowUrl(sim.url));
    expect(codes).toEqual(['200']);
  });
});
