import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import type { Schedule } from '../../src/config/schedule.js';
import type { Config } from '../../src/config/types.js';
import { startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { PollPlan } from '../../src/worker/plan.js';
import { createSelfMetrics } from '../../src/poller/self-metrics.js';
import type { PollUnit } from '../../src/vocabulary.js';
import { API_KEY, EMAIL, QSTASH_TOKEN, testConfig, type HarnessOptions } from '../helpers/harness.js';

// The poll plan's groups: an entry's interval, and a group of its own, `<entry key>/<schedule>`, for
// each own schedule (the table of sources' `schedule`: dlq_interval, backups_interval) a source the entry polls runs on,
// which its discovered units join.

const running: { sim: Simulator; plan: PollPlan }[] = [];
afterEach(async () => {
  for (const { sim, plan } of running.splice(0)) {
    await plan.close();
    await sim.stop();
  }
});

const HOURLY = { cron: '0 0 * * * *', intervalMs: 3_600_000 };
const DLQ = { cron: '0 */5 * * * *', intervalMs: 300_000 };

async function setUp(options: HarnessOptions = {}, edit: (config: Config) => Config = (config) => config) {
  const sim = await startSimulator({ qstashToken: QSTASH_TOKEN, email: EMAIL, apiKey: API_KEY });
  const news: { key: string; family: string; units: readonly PollUnit[] }[] = [];
  const plan = new PollPlan({
    version: 'test',
    metrics: createSelfMetrics(),
    logger: pino({ level: 'silent' }),
    onDiscovered: (key, family, units) => news.push({ key, family, units }),
  });
  running.push({ sim, plan });
  const config = edit(testConfig(sim.url, options));
  return { groups: plan.plan(config).groups, news };
}

/** Each group's key, interval and unit IDs. */
function shape(groups: readonly { key: string; intervalMs: number; units: readonly PollUnit[] }[]) {
  return groups.map(({ key, intervalMs, units }) => [key, intervalMs, units.map((unit) => unit.id)]);
}

/** The config with every QStash entry's DLQs on `schedule`. */
const dlqEvery =
  (schedule: Schedule) =>
  (config: Config): Config => ({
    ...config,
    qstash: config.qstash.map((account) => ({
      ...account,
      ownSchedules: { ...account.ownSchedules, dlq: schedule },
    })),
  });

describe('PollPlan', () => {
  test('one group per entry when no source has a schedule of its own', async () => {
    const { groups } = await setUp();
    expect(shape(groups)).toEqual([
      ['qstash/eu', 1000, ['flow_control/eu/', 'url_groups/eu/']],
      ['management/main', 1000, expect.any(Array)],
    ]);
  });

  // The DLQs page on the entry's dlq_interval, together in one group; the other sources on the interval.
  test('the DLQs run in a group of their own, <entry key>/dlq, on dlq_interval; the others on the entry interval', async () => {
    const { groups } = await setUp({ qstashSources: ['queues', 'dlq', 'workflow_dlq'] }, dlqEvery(DLQ));
    expect(shape(groups).slice(0, 2)).toEqual([
      ['qstash/eu', 1000, ['queues/eu/']],
      ['qstash/eu/dlq', 300_000, ['dlq/eu/', 'workflow_dlq/eu/']],
    ]);
    expect(groups[1]?.cron).toBe(DLQ.cron);
    const { groups: one } = await setUp({ qstashSources: ['queues', 'workflow_dlq'] }, dlqEvery(DLQ));
    expect(shape(one).slice(0, 2)).toEqual([
      ['qstash/eu', 1000, ['queues/eu/']],
      ['qstash/eu/dlq', 300_000, ['workflow_dlq/eu/']],
    ]);
  });

  test('an own schedule no polled source runs on makes no group', async () => {
    const { groups } = await setUp({ qstashSources: ['queues'] }, dlqEvery(DLQ));
    expect(shape(groups).map(([key]) => key)).toEqual(['qstash/eu', 'management/main']);
  });

  test("a per-ID source's discovered units join its own group", async () => {
    const { groups, news } = await setUp(
      {
        discover: true,
        managementSources: ['databases', 'redis_backups'],
        managementSchedules: { backups: HOURLY },
      },
      (config) => ({ ...config, qstash: [] }),
    );
    expect(shape(groups)).toEqual([
      ['management/main', 1000, ['databases/main/']],
      ['management/main/backups', 3_600_000, []],
    ]);
    const listing = groups[0]?.units[0];
    const polled = await listing?.poll({
      signal: new AbortController().signal,
      deadline: Date.now() + 60_000,
    });
    polled?.onRecorded?.();
    expect(news.map(({ key, family }) => [key, family])).toEqual([
      ['management/main/backups', 'redis_backups/main'],
    ]);
    expect(news[0]?.units.length).toBeGreaterThan(0);
  });
});
