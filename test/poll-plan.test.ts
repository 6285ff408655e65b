import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, test } from 'vitest';
import type { Config } from '../src/config/types.js';
import { startSimulator, type Simulator } from '../src/demo/simulator.js';
import { PollPlan } from '../src/poll-plan.js';
import { createSelfMetrics } from '../src/poller/self-metrics.js';
import type { PollUnit } from '../src/vocabulary.js';
import { API_KEY, EMAIL, QSTASH_TOKEN, testConfig } from './faults/harness.js';

// The poll plan's groups: an entry's interval, and a group of its own for each source the entry
// runs on a schedule of its own (dlq_interval, backups_interval), which its discovered units join.

const running: { sim: Simulator; plan: PollPlan }[] = [];
afterEach(async () => {
  for (const { sim, plan } of running.splice(0)) {
    await plan.close();
    await sim.stop();
  }
});

const HOURLY = { cron: '0 0 * * * *', intervalMs: 3_600_000 };

async function setUp(edit: (config: Config) => Config) {
  const sim = await startSimulator({ qstashToken: QSTASH_TOKEN, email: EMAIL, apiKey: API_KEY });
  const news: { key: string; family: string; units: readonly PollUnit[] }[] = [];
  const plan = new PollPlan({
    version: 'test',
    metrics: createSelfMetrics(new Registry(), { version: 'test' }),
    logger: pino({ level: 'silent' }),
    onDiscovered: (key, family, units) => news.push({ key, family, units }),
  });
  running.push({ sim, plan });
  const config = edit(testConfig(sim.url));
  return { groups: plan.plan(config).groups, news };
}

/** Each group's key, interval and unit IDs. */
function shape(groups: readonly { key: string; intervalMs: number; units: readonly PollUnit[] }[]) {
  return groups.map(({ key, intervalMs, units }) => [key, intervalMs, units.map((unit) => unit.id)]);
}

describe('PollPlan', () => {
  test('one group per entry when no source has a schedule of its own', async () => {
    const { groups } = await setUp((config) => config);
    expect(shape(groups)).toEqual([
      ['qstash/eu', 1000, ['flow_control/eu/', 'url_groups/eu/']],
      ['management/main', 1000, expect.any(Array)],
    ]);
  });

  test('a source on a schedule of its own runs in a group of its own, <entry key>/<source>', async () => {
    const { groups } = await setUp((config) => ({
      ...config,
      qstash: config.qstash.map((account) => ({ ...account, sourceSchedules: { url_groups: HOURLY } })),
    }));
    expect(shape(groups).slice(0, 2)).toEqual([
      ['qstash/eu', 1000, ['flow_control/eu/']],
      ['qstash/eu/url_groups', 3_600_000, ['url_groups/eu/']],
    ]);
    expect(groups[1]?.cron).toBe(HOURLY.cron);
  });

  // The DLQs page on the entry's dlq_interval (config resolution gives both sources that schedule).
  test('a source with a schedule of its own runs in its own poll group; the others on the entry interval', async () => {
    const DLQ = { cron: '0 */5 * * * *', intervalMs: 300_000 };
    const { groups } = await setUp((config) => ({
      ...config,
      qstash: config.qstash.map((account) => ({
        ...account,
        sources: ['queues', 'dlq', 'workflow_dlq'],
        sourceSchedules: { dlq: DLQ, workflow_dlq: DLQ },
      })),
    }));
    expect(shape(groups).slice(0, 3)).toEqual([
      ['qstash/eu', 1000, ['queues/eu/']],
      ['qstash/eu/dlq', 300_000, ['dlq/eu/']],
      ['qstash/eu/workflow_dlq', 300_000, ['workflow_dlq/eu/']],
    ]);
    const { groups: plain } = await setUp((config) => ({
      ...config,
      qstash: config.qstash.map((account) => ({
        ...account,
        sources: ['queues'],
        sourceSchedules: { dlq: DLQ, workflow_dlq: DLQ },
      })),
    }));
    expect(shape(plain).map(([key]) => key)).toEqual(['qstash/eu', 'management/main']);
  });

  test('a schedule of its own for a source the entry does not poll makes no group', async () => {
    const { groups } = await setUp((config) => ({
      ...config,
      qstash: config.qstash.map((account) => ({ ...account, sourceSchedules: { queues: HOURLY } })),
    }));
    expect(shape(groups).map(([key]) => key)).toEqual(['qstash/eu', 'management/main']);
  });

  test("a per-ID source's discovered units join its own group", async () => {
    const { groups, news } = await setUp((config) => ({
      ...config,
      qstash: [],
      management: config.management.map((account) => ({
        ...account,
        databases: undefined,
        sourceSchedules: { redis_stats: HOURLY },
      })),
    }));
    expect(shape(groups)).toEqual([
      ['management/main', 1000, ['databases/main/']],
      ['management/main/redis_stats', 3_600_000, []],
    ]);
    const listing = groups[0]?.units[0];
    const polled = await listing?.poll({
      signal: new AbortController().signal,
      deadline: Date.now() + 60_000,
    });
    polled?.onRecorded?.();
    expect(news.map(({ key, family }) => [key, family])).toEqual([
      ['management/main/redis_stats', 'redis_stats/main'],
    ]);
    expect(news[0]?.units.length).toBeGreaterThan(0);
  });
});
