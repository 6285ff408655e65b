import { get } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_DATABASES,
  DEMO_EMAIL,
  DEMO_ODD_FLOW_CONTROL_KEY,
  DEMO_ODD_URL_GROUP,
  DEMO_QSTASH_TOKEN,
  startSimulator,
} from '../../src/demo/simulator.js';
import type { Simulator, SimulatorOptions } from '../../src/demo/simulator.js';

const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

async function start(options?: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator(options);
  running.push(sim);
  return sim;
}

const bearer = (token = DEMO_QSTASH_TOKEN): Record<string, string> => ({ authorization: `Bearer ${token}` });
const basic = (email = DEMO_EMAIL, key = DEMO_API_KEY): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`,
});
const statsPath = (id: string): string => `/v2/redis/stats/${encodeURIComponent(id)}`;

interface Point {
  x: string;
  y: number | null;
}
interface FlowEntry {
  flowControlKey: string;
  waitListSize: number;
}
interface Group {
  name: string;
  createdAt: number;
  updatedAt: number;
  endpoints: { name?: string; url: string }[];
}

async function getJson<T>(sim: Simulator, path: string, headers: Record<string, string>): Promise<T> {
  const res = await fetch(sim.url + path, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const flowControl = async (sim: Simulator): Promise<FlowEntry[]> =>
  (await getJson<{ flowControls: FlowEntry[] }>(sim, '/v2/flowControl/', bearer())).flowControls;
const urlGroups = (sim: Simulator): Promise<Group[]> => getJson<Group[]>(sim, '/v2/topics', bearer());
const stats = (sim: Simulator, id = DEMO_DATABASES[0]!): Promise<Record<string, unknown>> =>
  getJson(sim, statsPath(id), basic());

const GO_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))? \+0000 UTC$/;
function goTimeMs(x: string): number {
  const m = GO_TIME.exec(x);
  if (!m) throw new Error(`not a Go time: ${x}`);
  return Date.parse(`${m[1]}T${m[2]}Z`) + Number(`0.${m[3] ?? '0'}`) * 1000;
}
const latest = (series: Point[]): Point =>
  series.filter((p) => p.y !== null).reduce((a, b) => (goTimeMs(b.x) > goTimeMs(a.x) ? b : a));

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

describe('auth', () => {
  test('QStash routes answer 401 with a JSON error without or with a wrong token', async () => {
    const sim = await start();
    for (const path of ['/v2/flowControl/', '/v2/topics']) {
      for (const headers of [{}, bearer('nope'), basic()]) {
        const res = await fetch(sim.url + path, { headers });
        expect(res.status).toBe(401);
        expect(await res.json()).toHaveProperty('error');
      }
    }
  });

  test('stats answer 401 without Basic auth or with a wrong key, 200 with the right one', async () => {
    const sim = await start({ email: 'ops@example.com', apiKey: 'k1' });
    const path = statsPath(DEMO_DATABASES[0]!);
    for (const headers of [{}, bearer(), basic('ops@example.com', 'k2'), basic('x@example.com', 'k1')]) {
      const res = await fetch(sim.url + path, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toHaveProperty('error');
    }
    expect((await fetch(sim.url + path, { headers: basic('ops@example.com', 'k1') })).status).toBe(200);
  });
});

describe('routes', () => {
  test('flow control: documented object shape, with and without trailing slash, odd key included', async () => {
    const sim = await start();
    const entries = await flowControl(sim);
    expect(entries.length).toBe(6);
    for (const e of entries) {
      expect(typeof e.flowControlKey).toBe('string');
      expect(Number.isInteger(e.waitListSize)).toBe(true);
      expect(e.waitListSize).toBeGreaterThanOrEqual(0);
      expect(e.waitListSize).toBeLessThanOrEqual(50);
      expect(e).toHaveProperty('parallelismMax');
    }
    expect(entries.map((e) => e.flowControlKey)).toContain(DEMO_ODD_FLOW_CONTROL_KEY);
    const noSlash = await getJson<{ flowControls: unknown[] }>(sim, '/v2/flowControl', bearer());
    expect(noSlash.flowControls.length).toBe(6);
    expect(sim.requests('flow_control')).toBe(2);
  });

  test('flow control: bare array shape and a large key count on request', async () => {
    const sim = await start({ flowControlShape: 'array', flowControlKeys: 10_000 });
    const entries = await getJson<FlowEntry[]>(sim, '/v2/flowControl/', bearer());
    expect(Array.isArray(entries)).toBe(true);
    expect(new Set(entries.map((e) => e.flowControlKey)).size).toBe(10_000);
  });

  test('odd names hold a quote, a backslash, a newline and non-ASCII', () => {
    for (const name of [DEMO_ODD_FLOW_CONTROL_KEY, DEMO_ODD_URL_GROUP]) {
      expect(name).toMatch(/"/);
      expect(name).toMatch(/\\/);
      expect(name).toMatch(/\n/);
      expect(/[^ -~\n]/.test(name)).toBe(true); // something outside printable ASCII
    }
  });

  test('URL groups: every group has endpoints, some unnamed, timestamps in Unix ms', async () => {
    const now = Date.UTC(2025, 7, 31, 15, 12, 52);
    const sim = await start({ now: () => now });
    const groups = await urlGroups(sim);
    expect(groups.length).toBe(4);
    expect(groups.map((g) => g.name)).toContain(DEMO_ODD_URL_GROUP);
    for (const g of groups) {
      expect(g.endpoints.length).toBeGreaterThan(0);
      expect(g.createdAt).toBeLessThanOrEqual(g.updatedAt);
      expect(g.updatedAt).toBeLessThanOrEqual(now);
      expect(g.createdAt).toBeGreaterThan(now - 500 * 86_400_000);
      for (const e of g.endpoints) expect(e.url).toMatch(/^https:\/\//);
    }
    expect(Math.max(...groups.map((g) => g.endpoints.length))).toBeGreaterThanOrEqual(10);
    expect(groups.flatMap((g) => g.endpoints).some((e) => e.name === undefined)).toBe(true);
  });

  test('URL groups: emptyUrlGroup leaves exactly one group without endpoints', async () => {
    const sim = await start({ emptyUrlGroup: true, urlGroups: 7 });
    const groups = await urlGroups(sim);
    expect(groups.length).toBe(7);
    expect(groups.filter((g) => g.endpoints.length === 0).length).toBe(1);
  });

  test('stats: real field set, Go timestamps, an unsorted series, a null point, plausible values', async () => {
    const sim = await start({ now: () => Date.UTC(2025, 7, 31, 15, 12, 52, 799) });
    const body = await stats(sim);
    const seriesFields = [
      'connection_count',
      'keyspace',
      'throughput',
      'diskusage',
      'latencymean',
      'read_latency_mean',
      'read_latency_99',
      'write_latency_mean',
      'write_latency_99',
      'hits',
      'misses',
      'read',
      'write',
      'dailyrequests',
      'dailybilling',
      'bandwidths',
    ];
    for (const f of ['produce_throughput', 'consume_throughput', 'dailyproduce', 'dailyconsume']) {
      expect(body[f]).toBeNull();
    }
    for (const f of [
      'dailybandwidth',
      'total_monthly_requests',
      'total_monthly_billing',
      'total_monthly_bandwidth',
    ]) {
      expect(typeof body[f]).toBe('number');
    }
    expect(body).toHaveProperty('command_counts');
    expect(body.days).toHaveLength(7);
    expect((body.days as string[]).at(-1)).toBe('Sunday'); // 2025-08-31 was a Sunday

    const series = (f: string): Point[] => body[f] as Point[];
    const digits = new Set<number>();
    let nulls = 0;
    let unsorted = 0;
    for (const f of seriesFields) {
      const points = series(f);
      expect(points.length).toBeGreaterThan(0);
      for (const p of points) {
        const m = GO_TIME.exec(p.x);
        expect(m, p.x).not.toBeNull();
        digits.add(m?.[3]?.length ?? 0);
        if (p.y === null) nulls++;
      }
      const times = points.map((p) => goTimeMs(p.x));
      if (times.some((t, i) => i > 0 && t <= times[i - 1]!)) unsorted++;
    }
    expect(series('latencymean')).toHaveLength(60);
    expect([...digits].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(nulls).toBe(1);
    expect(unsorted).toBeGreaterThanOrEqual(1);
    // The newest keyspace point is not the last one in the array.
    expect(latest(series('keyspace'))).not.toBe(series('keyspace').at(-1));
    expect(goTimeMs(latest(series('latencymean')).x)).toBeLessThanOrEqual(
      Date.UTC(2025, 7, 31, 15, 12, 52, 799),
    );

    const y = (f: string): number => latest(series(f)).y!;
    expect(y('latencymean')).toBeGreaterThan(0.1);
    expect(y('latencymean')).toBeLessThan(2.5);
    expect(y('read_latency_99')).toBeGreaterThanOrEqual(1);
    expect(y('write_latency_99')).toBeLessThanOrEqual(8);
    expect(y('hits') / (y('hits') + y('misses'))).toBeGreaterThan(0.85);
    expect(y('dailybilling')).toBeGreaterThan(0.05);
    expect(y('dailybilling')).toBeLessThan(2);
    expect(body.total_monthly_billing).toBeLessThan(20);
  });

  test('stats: the database ID is URL-decoded; unknown IDs answer 404', async () => {
    const sim = await start({ databases: ['db/with space?'] });
    expect(await stats(sim, 'db/with space?')).toHaveProperty('keyspace');
    expect(sim.lastPath('redis_stats')).toBe('/v2/redis/stats/db%2Fwith%20space%3F');
    const res = await fetch(sim.url + statsPath('nope'), { headers: basic() });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'database not found' });
    sim.setDatabases(['nope']);
    expect((await fetch(sim.url + statsPath('nope'), { headers: basic() })).status).toBe(200);
  });

  test('unknown paths answer 404 and other methods 405', async () => {
    const sim = await start();
    expect((await fetch(`${sim.url}/v2/queues`, { headers: bearer() })).status).toBe(404);
    const res = await fetch(`${sim.url}/v2/topics`, { method: 'POST', headers: bearer(), body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(sim.requests('url_groups')).toBe(1);
  });
});

describe('data', () => {
  test('frozen: byte-identical bodies across calls and instances with the same seed', async () => {
    let clock = Date.UTC(2025, 0, 1);
    const now = (): number => (clock += 7_000);
    const a = await start({ frozen: true, seed: 7, now });
    const b = await start({ frozen: true, seed: 7, now: () => Date.UTC(2025, 0, 1) + 7_000 });
    const c = await start({ frozen: true, seed: 8, now: () => Date.UTC(2025, 0, 1) + 7_000 });
    const text = async (sim: Simulator, path: string, headers: Record<string, string>): Promise<string> =>
      (await fetch(sim.url + path, { headers })).text();
    for (const [path, headers] of [
      ['/v2/flowControl/', bearer()],
      ['/v2/topics', bearer()],
      [statsPath(DEMO_DATABASES[1]!), basic()],
    ] as const) {
      const first = await text(a, path, headers);
      expect(await text(a, path, headers)).toBe(first);
      expect(await text(b, path, headers)).toBe(first);
      expect(await text(c, path, headers)).not.toBe(first);
    }
  });

  test('moving data: timestamps follow the clock, keyspace grows, wait lists change', async () => {
    let clock = Date.UTC(2025, 7, 31, 12);
    const sim = await start({ now: () => clock });
    const before = await stats(sim);
    const waitsBefore: number[] = [];
    const waitsAfter: number[] = [];
    for (let i = 0; i < 10; i++) {
      waitsBefore.push(...(await flowControl(sim)).map((e) => e.waitListSize));
      clock += 60_000;
    }
    clock += 3_600_000;
    const after = await stats(sim);
    waitsAfter.push(...(await flowControl(sim)).map((e) => e.waitListSize));
    const newest = (body: Record<string, unknown>): Point => latest(body.keyspace as Point[]);
    expect(goTimeMs(newest(after).x) - goTimeMs(newest(before).x)).toBeGreaterThan(4_000_000);
    expect(newest(after).y!).toBeGreaterThan(newest(before).y!);
    expect(new Set(waitsBefore).size).toBeGreaterThan(3);
    expect(waitsBefore).toContain(0);
    expect(waitsAfter).not.toEqual(waitsBefore.slice(0, waitsAfter.length));
  });

  test('churn: keys and groups appear and vanish over time', async () => {
    let clock = Date.UTC(2025, 7, 31);
    const sim = await start({ churn: true, flowControlKeys: 40, urlGroups: 40, now: () => clock });
    const keys1 = new Set((await flowControl(sim)).map((e) => e.flowControlKey));
    const groups1 = new Set((await urlGroups(sim)).map((g) => g.name));
    clock += 120_000;
    const keys2 = new Set((await flowControl(sim)).map((e) => e.flowControlKey));
    const groups2 = new Set((await urlGroups(sim)).map((g) => g.name));
    expect([...keys1].some((k) => !keys2.has(k))).toBe(true);
    expect([...keys2].some((k) => !keys1.has(k))).toBe(true);
    expect([...groups1].some((g) => !groups2.has(g))).toBe(true);
    expect([...groups2].some((g) => !groups1.has(g))).toBe(true);
  });

  test('overrides and a steadily growing wait list', async () => {
    let clock = Date.UTC(2025, 7, 31);
    const sim = await start({ now: () => clock, frozen: false });
    sim.setFlowControl([{ flowControlKey: 'a', waitListSize: 3 }]);
    sim.setUrlGroups([{ name: 'g', createdAt: 1, updatedAt: 2, endpoints: [] }]);
    expect(await flowControl(sim)).toEqual([{ flowControlKey: 'a', waitListSize: 3 }]);
    expect(await urlGroups(sim)).toEqual([{ name: 'g', createdAt: 1, updatedAt: 2, endpoints: [] }]);

    sim.setWaitListGrowth('a', 10);
    sim.setWaitListGrowth('new', 60);
    clock += 5 * 60_000;
    const grown = await flowControl(sim);
    expect(grown).toEqual([
      { flowControlKey: 'a', waitListSize: 53 },
      { flowControlKey: 'new', waitListSize: 300 },
    ]);
    sim.setWaitListGrowth('new', null);
    sim.setFlowControl(null);
    const keys = (await flowControl(sim)).map((e) => e.flowControlKey);
    expect(keys).toContain(DEMO_ODD_FLOW_CONTROL_KEY);
    expect(keys).toContain('a');
    expect(keys).not.toContain('new');
  });

  test('frozen bodies are regenerated after a test changes the data', async () => {
    const sim = await start({ frozen: true });
    const before = await flowControl(sim);
    sim.setFlowControl([{ flowControlKey: 'only', waitListSize: 1 }]);
    const after = await flowControl(sim);
    expect(after).not.toEqual(before);
    expect(after).toEqual([{ flowControlKey: 'only', waitListSize: 1 }]);
  });
});

describe('faults', () => {
  test('status with Retry-After for the next N requests, then normal service', async () => {
    const sim = await start();
    sim.setFault('flow_control', { kind: 'status', status: 429, retryAfter: '7', times: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(await res.json()).toEqual({ error: 'Too Many Requests' });
    }
    expect((await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() })).status).toBe(200);
    expect((await fetch(`${sim.url}/v2/topics`, { headers: bearer() })).status).toBe(200);
    expect(sim.requests('flow_control')).toBe(3);
  });

  test("'all' applies to every route until cleared", async () => {
    const sim = await start();
    sim.setFault('all', { kind: 'status', status: 503, body: 'down' });
    for (const [path, headers] of [
      ['/v2/flowControl/', bearer()],
      ['/v2/topics', bearer()],
      [statsPath(DEMO_DATABASES[0]!), basic()],
    ] as const) {
      const res = await fetch(sim.url + path, { headers });
      expect(res.status).toBe(503);
      expect(await res.text()).toBe('down');
    }
    sim.setFault('all', null);
    expect((await fetch(`${sim.url}/v2/topics`, { headers: bearer() })).status).toBe(200);
  });

  test('body and content-type faults', async () => {
    const sim = await start();
    sim.setFault('url_groups', { kind: 'body', body: '{"not": "an array"', times: 1 });
    const bad = await fetch(`${sim.url}/v2/topics`, { headers: bearer() });
    expect(bad.status).toBe(200);
    expect(bad.headers.get('content-type')).toBe('application/json');
    expect(await bad.text()).toBe('{"not": "an array"');

    sim.setFault('url_groups', { kind: 'content-type', contentType: 'text/html' });
    const html = await fetch(`${sim.url}/v2/topics`, { headers: bearer() });
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(Array.isArray(JSON.parse(await html.text()))).toBe(true);
  });

  test('oversize: a JSON body of exactly the requested size, with or without Content-Length', async () => {
    const sim = await start();
    sim.setFault('redis_stats', { kind: 'oversize', bytes: 3_000_000, times: 1 });
    const res = await fetch(sim.url + statsPath(DEMO_DATABASES[0]!), { headers: basic() });
    expect(res.headers.get('content-length')).toBe('3000000');
    expect(JSON.parse(await res.text())).toHaveProperty('padding');

    sim.setFault('flow_control', { kind: 'oversize', bytes: 100_000, chunked: true });
    const chunked = await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() });
    expect(chunked.headers.get('content-length')).toBeNull();
    expect((await chunked.text()).length).toBe(100_000);
  });

  test('reset: headers arrive, then the connection dies mid-body', async () => {
    const sim = await start();
    sim.setFault('url_groups', { kind: 'reset' });
    const res = await fetch(`${sim.url}/v2/topics`, { headers: bearer() });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  test('trickle: headers at once, the valid body slowly', async () => {
    const sim = await start();
    sim.setFault('flow_control', { kind: 'trickle', bytesPerSecond: 20_000 });
    const t0 = Date.now();
    const res = await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(JSON.parse(body)).toHaveProperty('flowControls');
  });

  test('delay answers normally after the delay', async () => {
    const sim = await start();
    sim.setFault('url_groups', { kind: 'delay', ms: 150, times: 1 });
    const t0 = Date.now();
    expect(await urlGroups(sim)).toHaveLength(4);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  test('stop() resolves promptly with hung and trickling requests outstanding', async () => {
    const sim = await startSimulator();
    sim.setFault('flow_control', { kind: 'hang' });
    sim.setFault('url_groups', { kind: 'trickle', bytesPerSecond: 1 });
    // Settle into values at once: a rejection with no handler yet would be reported as unhandled.
    const outcome = (p: Promise<unknown>): Promise<string> =>
      p.then(
        () => 'answered',
        () => 'failed',
      );
    const hung = outcome(fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() }));
    const slow = outcome(fetch(`${sim.url}/v2/topics`, { headers: bearer() }).then((res) => res.text()));
    await waitFor(() => sim.requests('flow_control') === 1 && sim.requests('url_groups') === 1);
    const t0 = Date.now();
    await sim.stop();
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(await hung).toBe('failed');
    expect(await slow).toBe('failed');
  });
});

describe('introspection', () => {
  test('counters, last headers and connections', async () => {
    const sim = await start();
    await fetch(`${sim.url}/v2/topics`, { headers: { ...bearer(), 'user-agent': 'upstash-exporter/test' } });
    expect(sim.requests('url_groups')).toBe(1);
    expect(sim.requests('redis_stats')).toBe(0);
    expect(sim.lastHeaders('url_groups')?.['user-agent']).toBe('upstash-exporter/test');
    expect(sim.lastHeaders('url_groups')?.authorization).toBe(`Bearer ${DEMO_QSTASH_TOKEN}`);
    expect(sim.lastHeaders('flow_control')).toBeUndefined();

    const opened = sim.connectionsOpened;
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve, reject) => {
        get(`${sim.url}/v2/topics`, { agent: false, headers: bearer() }, (res) => {
          res.resume();
          res.on('end', resolve);
        }).on('error', reject);
      });
    }
    expect(sim.connectionsOpened).toBe(opened + 2);
  });

  test('restart() listens again on the same port, keeping counters', async () => {
    const sim = await start();
    const url = sim.url;
    await urlGroups(sim);
    await sim.stop();
    await expect(fetch(`${url}/v2/topics`, { headers: bearer() })).rejects.toThrow();
    await sim.restart();
    expect(sim.url).toBe(url);
    expect(await urlGroups(sim)).toHaveLength(4);
    expect(sim.requests('url_groups')).toBe(2);
  });
});
