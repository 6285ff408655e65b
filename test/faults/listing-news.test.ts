import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { Secret } from '../../src/config/secret.js';
import type { Config } from '../../src/config/types.js';
import { startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { createLogger } from '../../src/logger.js';
import { limitLabelValue } from '../../src/metrics/label-limit.js';
import { ownsUnit } from '../../src/sources/shards.js';
import { find, parseExposition, valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { API_KEY, EMAIL, QSTASH_TOKEN, eventually, httpGet, testConfig } from '../helpers/harness.js';

// What a listing reports, against the real exporter. A reload while the listing is
// in flight: its poll was made under the old configuration, so whatever it reports after the reload
// is applied under the one in force, or dropped, never with the old sources, credentials or client
// (the listing is held open by a delayed answer across app.reload(), what SIGHUP runs once the new
// configuration validates). A shard polling another's listing exports nothing of it. Hostile IDs:
// one rule for the labels of every series, and an ID no URL can carry is the listing's problem.

interface Running {
  readonly sim: Simulator;
  readonly app: App;
  readonly config: Config;
  readonly logs: Record<string, unknown>[];
  scrape(): Promise<ParsedSample[]>;
  text(): Promise<string>;
  stop(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map(async (r) => r.stop()));
});

/** The simulator and the exporter on it (management only), discovering `db-a`; `edit` changes the configuration first. */
async function start(
  edit: (config: Config, sim: Simulator) => Config | Promise<Config> = (config) => config,
): Promise<Running> {
  const sim = await startSimulator({
    qstashToken: QSTASH_TOKEN,
    email: EMAIL,
    apiKey: API_KEY,
    databases: ['db-a'],
  });
  const base = testConfig(sim.url, {
    discover: true,
    intervalSeconds: 1,
    http: { timeoutMs: 5000, retries: 0 },
    logLevel: 'warn',
  });
  const config = await edit({ ...base, qstash: [] }, sim);
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('warn', {
    write: (line: string) => {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const app = createApp(config, { logger, version: 'test', revision: 'unknown' });
  const address = await app.start();
  const text = async () => (await httpGet(`http://127.0.0.1:${address.port}/metrics`)).body;
  const r: Running = {
    sim,
    app,
    config,
    logs,
    text,
    scrape: async () => parseExposition(await text()),
    stop: async () => {
      await app.stop();
      await sim.stop();
    },
  };
  running.push(r);
  return r;
}

const stats = (id: string) => ({ source: 'redis_stats', account: 'main', database_id: id });

/** Holds the next listing open for `ms`, and resolves once it has reached the simulator. */
async function holdListing(sim: Simulator, route: 'databases' | 'qstash_users', ms: number): Promise<number> {
  const before = sim.requests(route);
  sim.setFault(route, { kind: 'delay', ms, times: 1 });
  await eventually(
    'the listing in flight',
    () => (sim.requests(route) > before ? true : undefined),
    5000,
    20,
  );
  return sim.requests(route);
}

/** Waits until `route` has answered `count` more listings after the held one. */
async function listingsAfter(
  sim: Simulator,
  route: 'databases' | 'qstash_users',
  held: number,
  count: number,
) {
  await eventually(
    'later listings',
    () => (sim.requests(route) >= held + count ? true : undefined),
    10_000,
    50,
  );
}

describe('a reload while a listing is in flight', () => {
  test('a source the reload removed gets no units from it (redis_stats)', async () => {
    const r = await start();
    await eventually('db-a up', async () =>
      valueOf(await r.scrape(), 'upstash_up', stats('db-a')) === 1 ? true : undefined,
    );
    const held = await holdListing(r.sim, 'databases', 1500);
    r.sim.setDatabases(['db-a', 'db-new']);
    const [management] = r.config.management;
    await r.app.reload({ ...r.config, management: [{ ...management!, sources: ['databases'] }] });
    await listingsAfter(r.sim, 'databases', held, 2);
    const samples = await r.scrape();
    expect(find(samples, 'upstash_up', { source: 'redis_stats' })).toEqual([]);
    expect(find(samples, 'upstash_redis_keys', {})).toEqual([]);
    expect(valueOf(samples, 'upstash_up', { source: 'databases', account: 'main' })).toBe(1);
  });

  test('a source the reload removed gets no units from it (qstash_users → qstash_stats)', async () => {
    const r = await start((config) => ({
      ...config,
      management: config.management.map((m) => ({
        ...m,
        sources: ['qstash_users', 'qstash_stats'] as const,
      })),
    }));
    await eventually('an instance up', async () =>
      find(await r.scrape(), 'upstash_up', { source: 'qstash_stats' }).some((s) => s.value === 1)
        ? true
        : undefined,
    );
    const held = await holdListing(r.sim, 'qstash_users', 1500);
    const [management] = r.config.management;
    await r.app.reload({ ...r.config, management: [{ ...management!, sources: ['qstash_users'] }] });
    await listingsAfter(r.sim, 'qstash_users', held, 2);
    const samples = await r.scrape();
    expect(find(samples, 'upstash_up', { source: 'qstash_stats' })).toEqual([]);
    expect(valueOf(samples, 'upstash_up', { source: 'qstash_users', account: 'main' })).toBe(1);
  });

  test('an API key rotated with the old one revoked: the databases it lists poll with the new key', async () => {
    let gate: KeyGate | undefined;
    const r = await start(async (config, sim) => {
      gate = await startKeyGate(sim.url, 'key-old');
      const url = gate.url;
      return {
        ...config,
        management: config.management.map((m) => ({ ...m, url, apiKey: new Secret('key-old') })),
      };
    });
    try {
      await eventually('db-a up', async () =>
        valueOf(await r.scrape(), 'upstash_up', stats('db-a')) === 1 ? true : undefined,
      );
      const held = await holdListing(r.sim, 'databases', 1500);
      r.sim.setDatabases(['db-a', 'db-new']);
      gate?.accept('key-new');
      const [management] = r.config.management;
      await r.app.reload({ ...r.config, management: [{ ...management!, apiKey: new Secret('key-new') }] });
      await listingsAfter(r.sim, 'databases', held, 2);
      const samples = await eventually('db-new up', async () => {
        const scraped = await r.scrape();
        return valueOf(scraped, 'upstash_up', stats('db-new')) === 1 ? scraped : undefined;
      });
      expect(
        valueOf(samples, 'upstash_exporter_poll_failures_total', {
          ...stats('db-new'),
          reason: 'unauthorized',
        }),
      ).toBe(0);
    } finally {
      await gate?.stop();
    }
  });

  test('http.timeout changed, the old client closed: the databases it lists poll through the new one', async () => {
    const r = await start();
    await eventually('db-a up', async () =>
      valueOf(await r.scrape(), 'upstash_up', stats('db-a')) === 1 ? true : undefined,
    );
    const held = await holdListing(r.sim, 'databases', 1500);
    r.sim.setDatabases(['db-a', 'db-new']);
    await r.app.reload({ ...r.config, http: { ...r.config.http, timeoutMs: 4000 } });
    await listingsAfter(r.sim, 'databases', held, 2);
    const samples = await eventually('db-new up', async () => {
      const scraped = await r.scrape();
      return valueOf(scraped, 'upstash_up', stats('db-new')) === 1 ? scraped : undefined;
    });
    expect(
      valueOf(samples, 'upstash_exporter_poll_failures_total', { ...stats('db-new'), reason: 'network' }),
    ).toBe(0);
  });
});

describe('a shard polling the listing of another shard', () => {
  test('exports nothing of it, not even its skipped polls', async () => {
    // Of two shards, the one that does not own the listing: it still polls it, silently.
    const shard = ownsUnit('databases/main/', { shard: 0, total: 2 }) ? 1 : 0;
    const r = await start((config) => ({ ...config, sharding: { shard, total: 2 } }));
    const held = await holdListing(r.sim, 'databases', 2500);
    await listingsAfter(r.sim, 'databases', held, 1);
    const text = await r.text();
    expect(r.logs.some((l) => l.msg === 'poll skipped' && l.source === 'databases')).toBe(true);
    expect(text).not.toContain('source="databases"');
  });
});

describe('hostile IDs in a listing', () => {
  test('a very long database ID: its health series join its capped data series', async () => {
    const r = await start();
    const id = `db-${'x'.repeat(3000)}`;
    r.sim.setDatabases([id]);
    const capped = limitLabelValue(id);
    const samples = await eventually('the long ID up', async () => {
      const scraped = await r.scrape();
      return valueOf(scraped, 'upstash_up', stats(capped)) === 1 ? scraped : undefined;
    });
    expect(capped.length).toBeLessThanOrEqual(1024);
    expect(valueOf(samples, 'upstash_redis_keys', { account: 'main', database_id: capped })).toBeDefined();
    expect(find(samples, 'upstash_up', { database_id: id })).toEqual([]);
  });

  test('IDs no URL can carry (unpaired surrogates) get no unit, are logged once each, never fail as internal', async () => {
    const r = await start();
    const bad = ['db-\uD800', 'db-\uDC00'];
    r.sim.setDatabases(['db-ok', ...bad]);
    const held = r.sim.requests('databases');
    await eventually('db-ok up', async () =>
      valueOf(await r.scrape(), 'upstash_up', stats('db-ok')) === 1 ? true : undefined,
    );
    await listingsAfter(r.sim, 'databases', held, 3);
    const text = await r.text();
    const samples = parseExposition(text);
    expect(find(samples, 'upstash_up', { source: 'redis_stats' }).map((s) => s.labels.database_id)).toEqual([
      'db-ok',
    ]);
    expect(
      find(samples, 'upstash_exporter_poll_failures_total', { reason: 'internal' }).every(
        (s) => s.value === 0,
      ),
    ).toBe(true);
    const reported = r.logs.filter((l) => l.msg === 'ID cannot be put in a URL; not polled');
    expect(reported).toHaveLength(2);
    // The listing's own series name both, apart, under the label rule: no line twice.
    expect(find(samples, 'upstash_redis_database_info', {})).toHaveLength(3);
    const lines = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(new Set(lines).size).toBe(lines.length);
  });
});

/** A front of the simulator that lets through one management key at a time (a key rotation). */
interface KeyGate {
  readonly url: string;
  accept(key: string): void;
  stop(): Promise<void>;
}

async function startKeyGate(target: string, key: string): Promise<KeyGate> {
  let valid = key;
  const basic = (k: string) => `Basic ${Buffer.from(`${EMAIL}:${k}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== basic(valid)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const upstream = request(
      `${target}${req.url ?? '/'}`,
      { headers: { authorization: basic(API_KEY) } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accept: (next) => {
      valid = next;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
