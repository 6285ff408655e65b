import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DataSeries } from '../../src/metrics/data-series.js';
import { limitLabelValue } from '../../src/metrics/label-limit.js';
import { Poller, type PollGroup } from '../../src/poller/poller.js';
import { createSelfMetrics } from '../../src/poller/self-metrics.js';
import { redisStatsSamples } from '../../src/sources/redis-stats.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { HttpStatusError } from '../../src/upstash/errors.js';
import { unitLabels, type PollResult, type PollUnit } from '../../src/vocabulary.js';
import { Served } from '../helpers/served.js';

// What the poller reports of a poll, and in which order: a listing's news after its own success,
// none from a poll a reload overtook; nothing at all of a silent unit; health labels under the same
// label rule as data series.

const EVERY_SECOND = '* * * * * *';
/** A wait inside a poll: on the fake clock, so it ends when the test moves the clock past it. */
const sleep = async (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Moves the fake clock on, running every timer (cron ticks included) and promise due meanwhile. */
const pass = async (ms: number) => vi.advanceTimersByTimeAsync(ms);

function setup(groups: PollGroup[]) {
  const metrics = createSelfMetrics();
  const series = new DataSeries(DATA_METRICS);
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const poller = new Poller({ groups, series, metrics, logger: pino({ level: 'debug' }, sink) });
  running = poller;
  const served = new Served(series, metrics);
  const text = async () => Promise.resolve(served.text());
  return { poller, text, lines };
}

const group = (units: PollUnit[], key = 'management/main'): PollGroup => ({
  key,
  cron: EVERY_SECOND,
  intervalMs: 1000,
  units,
});

const unit = (source: string, id: string, poll: PollUnit['poll'], silent = false): PollUnit => ({
  id: `${source}/main/${id}`,
  labels: unitLabels(source, 'main', id === '' ? 'account' : 'database', id),
  ...(silent && { silent }),
  poll,
});

/** A listing whose poll lands when the test says, and how many times its news was passed on. */
function heldListing() {
  let resolve: ((result: PollResult) => void) | undefined;
  let told = 0;
  const listing = unit(
    'databases',
    '',
    async () =>
      new Promise<PollResult>((settle) => {
        resolve = settle;
      }),
  );
  return {
    listing,
    land: () => resolve?.({ samples: [], onRecorded: () => (told += 1) }),
    told: () => told,
  };
}

// The clock is fake (node-cron, the poller's timers and Date alike), as in poller.test.ts: which
// ticks fall within a poll does not depend on how busy the machine is. Half a second into a second,
// so that the start-up poll and the first cron tick never coincide.
beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2025, 0, 1, 0, 0, 0, 500) });
});

let running: Poller | undefined;
afterEach(async () => {
  // A poll still waiting on the fake clock must be let go for stop() to settle.
  const stopping = running?.stop();
  await pass(10_000);
  await stopping;
  running = undefined;
  vi.useRealTimers();
});

describe('a listing and its news', () => {
  it('reaches the other units only once the listing itself is recorded as up', async () => {
    const seen: string[] = [];
    const listing = unit('databases', '', async () =>
      Promise.resolve<PollResult>({
        samples: [],
        onRecorded: () => {
          seen.push(t.poller.status().find((s) => s.labels.source === 'databases')?.outcome ?? 'absent');
        },
      }),
    );
    const t = setup([group([listing])]);
    t.poller.start();
    await pass(100);
    expect(seen[0]).toBe('ok');
  });

  it('that lands after a reload removed its group is dropped: no unit, no error', async () => {
    const { listing, land, told } = heldListing();
    const t = setup([group([listing])]);
    t.poller.start();
    await pass(50);
    await t.poller.reconfigure([]);
    land();
    await t.poller.settled();
    expect(told()).toBe(0);
    t.poller.syncUnits('management/main', 'redis_stats/main', [
      unit('redis_stats', 'db-a', async () => Promise.resolve({ samples: [] })),
    ]);
    expect(t.poller.unitIds).toEqual([]);
    expect(t.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
  });

  it('that a reload overtook is dropped: the reload replaced the unit it was made under', async () => {
    const { listing, land, told } = heldListing();
    const t = setup([group([listing])]);
    t.poller.start();
    await pass(50);
    // The same unit, rebuilt by a reload: the poll in flight still finishes and is recorded.
    await t.poller.reconfigure([group([{ ...listing }])]);
    land();
    await t.poller.settled();
    expect(told()).toBe(0);
    expect(t.poller.status()[0]?.outcome).toBe('ok');
  });
});

describe('a silent unit (a listing another shard exports)', () => {
  it('exports nothing: no series, no health, not even its skipped or failed polls', async () => {
    let call = 0;
    const listing = unit(
      'databases',
      '',
      async () => {
        call += 1;
        if (call === 1) await sleep(1500);
        throw new HttpStatusError('GET', 'http://upstash.test/v2/redis/databases', 503);
      },
      true,
    );
    const t = setup([group([listing])]);
    t.poller.start();
    await pass(3200);
    expect(t.lines.some((l) => l.msg === 'poll skipped' && l.reason === 'still_running')).toBe(true);
    expect(call).toBeGreaterThanOrEqual(2);
    expect(await t.text()).not.toContain('source="databases"');
    expect(t.poller.status()).toEqual([]);
  });
});

describe('health labels', () => {
  it('take the label rule of data series: a long database ID joins its capped data series', async () => {
    const id = `db-${'x'.repeat(2000)}`;
    const stats = unit('redis_stats', id, async () =>
      Promise.resolve({
        samples: redisStatsSamples('main', id, {
          values: { keyspace: 3 },
          commands: new Map(),
          sampleTimestampMs: undefined,
          rejected: [],
        }),
      }),
    );
    const t = setup([group([stats])]);
    t.poller.start();
    await pass(100);
    const capped = limitLabelValue(id);
    expect(capped.length).toBeLessThanOrEqual(1024);
    const text = await t.text();
    expect(text).toContain(
      `upstash_up{source="redis_stats",account="main",database_id="${capped}",qstash_id="",index_id=""} 1`,
    );
    expect(text).toContain(`upstash_redis_keys{account="main",database_id="${capped}"} 3`);
    expect(text).not.toContain(id);
  });

  it('keep two IDs that differ only in an unpaired surrogate apart', async () => {
    const ids = ['db-\uD800', 'db-\uDC00'];
    const t = setup([
      group(ids.map((id) => unit('redis_stats', id, async () => Promise.resolve({ samples: [] })))),
    ]);
    t.poller.start();
    await pass(100);
    const up = (await t.text()).split('\n').filter((line) => line.startsWith('upstash_up{'));
    expect(up).toHaveLength(2);
    expect(new Set(up).size).toBe(2);
    expect(up.every((line) => !/[\uD800-\uDFFF]/.test(line))).toBe(true);
  });
});
