import { describe, expect, test } from 'vitest';
import {
  DEMO_CREATED_DATABASE,
  DEMO_DATABASES,
  DEMO_DELETED_DATABASE,
  DEMO_FREE_DATABASE,
  DEMO_SUSPENDED_DATABASE,
  FLEET_CHANGE_MS,
} from '../../src/demo/simulator.js';
import { basic, getJson, simulatorsStoppedAfterEach, stats, statsPath, type Point } from './helpers.js';

const start = simulatorsStoppedAfterEach();

interface Listed {
  database_id: string;
  database_name: string;
  state: string;
  type: string;
  password: string;
  rest_token: string;
  read_only_rest_token: string;
  db_request_limit: number;
  db_disk_threshold: number;
  budget: number;
}

const listing = (sim: Parameters<typeof stats>[0]): Promise<Listed[]> =>
  getJson<Listed[]>(sim, '/v2/redis/databases', basic());

describe('GET /v2/redis/databases', () => {
  test('Basic auth; the OpenAPI fields, fake credentials, the demo fleet', async () => {
    const sim = await start();
    expect((await fetch(`${sim.url}/v2/redis/databases`)).status).toBe(401);
    const listed = await listing(sim);
    const ids = listed.map((d) => d.database_id);
    expect(ids).toEqual([
      ...DEMO_DATABASES,
      DEMO_FREE_DATABASE,
      DEMO_SUSPENDED_DATABASE,
      DEMO_DELETED_DATABASE,
    ]);
    for (const d of listed) {
      expect(d.password).toMatch(/^SIMULATED-PASSWORD-/);
      expect(d.rest_token).toMatch(/^SIMULATED-REST-TOKEN-/);
      expect(d.read_only_rest_token).toMatch(/^SIMULATED-READONLY-TOKEN-/);
    }
    expect(listed.find((d) => d.database_id === DEMO_SUSPENDED_DATABASE)?.state).toBe('suspended');
    const free = listed.find((d) => d.database_id === DEMO_FREE_DATABASE);
    expect(free).toMatchObject({ type: 'free', db_request_limit: 500_000 });
    // "No limit" is Upstash's 19-digit number, written as such.
    const text = await (await fetch(`${sim.url}/v2/redis/databases/`, { headers: basic() })).text();
    expect(text).toContain('"db_request_limit":8024278031528736858');
  });

  test('a database is deleted and another created while the simulator runs; stats follow the listing', async () => {
    let now = Date.UTC(2026, 10, 10, 12);
    const sim = await start({ now: () => now });
    expect((await fetch(sim.url + statsPath(DEMO_CREATED_DATABASE), { headers: basic() })).status).toBe(404);
    expect((await fetch(sim.url + statsPath(DEMO_DELETED_DATABASE), { headers: basic() })).status).toBe(200);
    now += FLEET_CHANGE_MS;
    const ids = (await listing(sim)).map((d) => d.database_id);
    expect(ids).toContain(DEMO_CREATED_DATABASE);
    expect(ids).not.toContain(DEMO_DELETED_DATABASE);
    expect((await fetch(sim.url + statsPath(DEMO_CREATED_DATABASE), { headers: basic() })).status).toBe(200);
    expect((await fetch(sim.url + statsPath(DEMO_DELETED_DATABASE), { headers: basic() })).status).toBe(404);
  });

  test('frozen: the fleet never changes; setDatabases sets listing and stats together', async () => {
    const sim = await start({ frozen: true });
    const before = await listing(sim);
    expect(before.map((d) => d.database_id)).not.toContain(DEMO_CREATED_DATABASE);
    sim.setDatabases(['only-one']);
    expect((await listing(sim)).map((d) => d.database_id)).toEqual(['only-one']);
    expect((await fetch(sim.url + statsPath('only-one'), { headers: basic() })).status).toBe(200);
    expect((await fetch(sim.url + statsPath(DEMO_DATABASES[0]!), { headers: basic() })).status).toBe(404);
  });

  test('the free database runs near its request and disk limits', async () => {
    const sim = await start();
    const free = (await listing(sim)).find((d) => d.database_id === DEMO_FREE_DATABASE)!;
    const body = await stats(sim, DEMO_FREE_DATABASE);
    const ratio = (body.total_monthly_requests as number) / free.db_request_limit;
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1);
    const disk = (body.diskusage as Point[]).at(-1)!.y! / free.db_disk_threshold;
    expect(disk).toBeGreaterThan(0.8);
    expect(disk).toBeLessThan(1);
  });
});

describe('the stats of 6.4', () => {
  test('new fields, command counts, and daily arrays padded with the rest of the month', async () => {
    const now = Date.UTC(2026, 10, 10, 12);
    const sim = await start({ now: () => now });
    const body = await stats(sim);
    expect((body.latency_99 as Point[]).length).toBe(60);
    for (const field of [
      'daily_net_commands',
      'daily_read_requests',
      'daily_write_requests',
      'total_monthly_script_requests',
      'current_storage',
    ])
      expect(typeof body[field]).toBe('number');
    expect(body.daily_read_requests as number).toBeLessThanOrEqual(body.daily_net_commands as number);
    const commands = body.command_counts as { metric_identifier: string; data_points: Point[] }[];
    expect(commands.map((c) => c.metric_identifier)).toContain('GET');
    // 7 days up to today, then the 20 days left of November, valued 0.
    const daily = body.dailyrequests as Point[];
    expect(daily).toHaveLength(7 + 20);
    expect(daily.at(-1)).toEqual({ x: '2026-11-30 00:00:00 +0000 UTC', y: 0 });
    expect(body.days).toHaveLength(27);
  });
});
