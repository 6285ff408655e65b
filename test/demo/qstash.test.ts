import { describe, expect, test } from 'vitest';
import {
  DEMO_BUSY_QUEUE,
  DEMO_FAILING_SCHEDULE,
  DEMO_GLOBAL_PARALLELISM_MAX,
  DEMO_PAUSED_QUEUE,
  DEMO_QSTASH_INSTANCES,
  demoInstanceToken,
} from '../../src/demo/simulator.js';
import type { QueueEntry, ScheduleEntry, Simulator } from '../../src/demo/simulator.js';
import { FAILS_AFTER_MS } from '../../src/demo/schedules.js';
import { parseGlobalParallelism } from '../../src/upstash/global-parallelism.js';
import { parseQstashStats } from '../../src/upstash/qstash-stats.js';
import { parseQstashUsers } from '../../src/upstash/qstash-users.js';
import { parseQueues } from '../../src/upstash/queues.js';
import { parseSchedules } from '../../src/upstash/schedules.js';
import { basic, bearer, flowControl, getJson, simulatorsStoppedAfterEach } from './helpers.js';

const start = simulatorsStoppedAfterEach();
const T0 = Date.UTC(2025, 9, 14, 10, 0, 0);
const [EU, US] = DEMO_QSTASH_INSTANCES;

const queues = (sim: Simulator) => getJson<QueueEntry[]>(sim, '/v2/queues', bearer());
const schedules = (sim: Simulator) => getJson<ScheduleEntry[]>(sim, '/v2/schedules', bearer());

describe('QStash routes', () => {
  test('every new route answers with a body our parsers accept, and checks its credential', async () => {
    const sim = await start({ frozen: true, now: () => T0 });
    expect((await parseQueues(await queues(sim))).entries).toHaveLength(3);
    expect((await parseSchedules(await schedules(sim))).entries).toHaveLength(4);
    const parallelism = parseGlobalParallelism(await getJson(sim, '/v2/globalParallelism', bearer()));
    expect(parallelism.max).toBe(DEMO_GLOBAL_PARALLELISM_MAX);
    const users = await getJson<Record<string, unknown>[]>(sim, '/v2/qstash/users', basic());
    expect((await parseQstashUsers(users)).entries.map((u) => u.id)).toEqual(
      DEMO_QSTASH_INSTANCES.map((i) => i.id),
    );
    // The listing carries (fake) tokens, as the real one does.
    expect(users[0]!.token).toBe(demoInstanceToken(EU!.id));
    expect(users[0]!.read_only_token).toBe(demoInstanceToken(EU!.id, true));
    const stats = await getJson(sim, `/v2/qstash/stats/${EU!.id}`, basic());
    expect(parseQstashStats(stats, 'stats', T0).rejected).toEqual([]);

    expect((await fetch(`${sim.url}/v2/queues`)).status).toBe(401);
    expect((await fetch(`${sim.url}/v2/qstash/users`, { headers: bearer() })).status).toBe(401);
    expect((await fetch(`${sim.url}/v2/qstash/stats/nope`, { headers: basic() })).status).toBe(404);
  });

  test('a frozen simulator answers byte-identical bodies', async () => {
    const sim = await start({ frozen: true, now: () => T0 });
    for (const [path, headers] of [
      ['/v2/queues', bearer()],
      ['/v2/schedules', bearer()],
      ['/v2/globalParallelism', bearer()],
      ['/v2/qstash/users', basic()],
      [`/v2/qstash/stats/${US!.id}`, basic()],
    ] as const) {
      const a = await (await fetch(sim.url + path, { headers })).text();
      const b = await (await fetch(sim.url + path, { headers })).text();
      expect(b).toBe(a);
    }
  });

  test('asked for more queues and schedules, it generates them after the demo ones, unique and parsable', async () => {
    const sim = await start({ frozen: true, now: () => T0, queues: 200, schedules: 2000 });
    const { entries: q } = await parseQueues(await queues(sim));
    const { entries: s } = await parseSchedules(await schedules(sim));
    expect(q).toHaveLength(200);
    expect(s).toHaveLength(2000);
    expect(q[0]!.name).toBe(DEMO_BUSY_QUEUE);
    expect(s.map((x) => x.id)).toContain(DEMO_FAILING_SCHEDULE);
    expect(new Set(q.map((x) => x.name)).size).toBe(200);
    expect(new Set(s.map((x) => x.id)).size).toBe(2000);
    expect(s.slice(4).some((x) => x.lastRunFailed)).toBe(true);
    // Some generated queues carry a backlog, some schedules failed: the data is not all zeros.
    expect(q.slice(3).some((x) => x.lag! > 0)).toBe(true);
    const small = await start({ frozen: true, now: () => T0, queues: 1, schedules: 2 });
    expect((await parseQueues(await queues(small))).entries).toHaveLength(1);
    expect((await parseSchedules(await schedules(small))).entries).toHaveLength(2);
  });

  test('an instance that leaves the listing loses its stats (404)', async () => {
    const sim = await start({ frozen: true, now: () => T0 });
    sim.setQstashInstances([EU!]);
    expect((await getJson<unknown[]>(sim, '/v2/qstash/users', basic())).length).toBe(1);
    expect((await fetch(`${sim.url}/v2/qstash/stats/${US!.id}`, { headers: basic() })).status).toBe(404);
  });
});

describe('QStash data moves', () => {
  test('the busy queue rises and drains; the paused queue only piles up', async () => {
    let clock = T0;
    const sim = await start({ now: () => clock });
    const busy: number[] = [];
    const paused: number[] = [];
    for (let minute = 0; minute <= 10; minute++) {
      clock = T0 + minute * 60_000;
      const list = await queues(sim);
      busy.push(list.find((q) => q.name === DEMO_BUSY_QUEUE)!.lag);
      const p = list.find((q) => q.name === DEMO_PAUSED_QUEUE)!;
      expect(p.paused).toBe(true);
      paused.push(p.lag);
    }
    expect(Math.max(...busy)).toBeGreaterThan(300);
    expect(Math.min(...busy)).toBe(0);
    expect(paused[10]).toBeGreaterThan(paused[0]!);
    expect(paused[0]).toBeGreaterThan(0);
  });

  test('the CRM sync schedule starts failing FAILS_AFTER_MS after start-up', async () => {
    let clock = T0;
    const sim = await start({ now: () => clock });
    const failed = async () =>
      (await parseSchedules(await schedules(sim))).entries.find((s) => s.id === DEMO_FAILING_SCHEDULE)!
        .lastRunFailed;
    expect(await failed()).toBe(false);
    clock = T0 + FAILS_AFTER_MS - 1;
    expect(await failed()).toBe(false);
    clock = T0 + FAILS_AFTER_MS;
    expect(await failed()).toBe(true);
  });

  test('the DLQ of the paid instance grows; the free instance sits near its daily limit', async () => {
    let clock = T0;
    const sim = await start({ now: () => clock });
    const dlq = async () =>
      parseQstashStats(await getJson(sim, `/v2/qstash/stats/${EU!.id}`, basic()), 'stats', clock).values
        .dlq_message_count!;
    const before = await dlq();
    clock += 10 * 60_000;
    expect(await dlq()).toBe(before + 30);
    const free = parseQstashStats(await getJson(sim, `/v2/qstash/stats/${US!.id}`, basic()), 'stats', clock);
    expect(free.values.daily_requests! / US!.maxRequestsPerDay).toBeGreaterThan(0.85);
  });

  test('a flow-control key with a backlog runs at its parallelism limit; global parallelism reaches its max', async () => {
    let clock = T0;
    const sim = await start({ now: () => clock });
    const entries = (await flowControl(sim)) as unknown as {
      waitListSize: number;
      parallelismMax?: number;
      parallelismCount?: number;
      isPaused?: boolean;
    }[];
    const atLimit = entries.filter((e) => !e.isPaused && e.waitListSize > 0);
    expect(atLimit.length).toBeGreaterThan(0);
    for (const e of atLimit) expect(e.parallelismCount).toBe(e.parallelismMax);
    expect(entries.some((e) => e.isPaused === true && e.waitListSize > 0)).toBe(true);
    const seen: number[] = [];
    for (let minute = 0; minute < 15; minute++) {
      clock = T0 + minute * 60_000;
      seen.push(parseGlobalParallelism(await getJson(sim, '/v2/globalParallelism', bearer())).inUse);
    }
    expect(Math.max(...seen)).toBe(DEMO_GLOBAL_PARALLELISM_MAX);
  });
});
