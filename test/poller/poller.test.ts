import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DataSeries } from '../../src/metrics/data-series.js';
import { Poller, type PollGroup } from '../../src/poller/poller.js';
import { createSelfMetrics } from '../../src/poller/self-metrics.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { AbortedError, HttpStatusError, InvalidResponseError } from '../../src/upstash/errors.js';
import { MAX_WARNING_LENGTH, MAX_WARNINGS, type PollContext, type PollUnit } from '../../src/vocabulary.js';
import { Served } from '../helpers/served.js';

const EVERY_SECOND = '* * * * * *';
const labels = { source: 'flow_control', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
/** A wait inside a poll: on the fake clock, so it ends when the test moves the clock past it. */
const sleep = async (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Moves the fake clock on, running every timer (cron ticks included) and promise due meanwhile. */
const pass = async (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** A poller wired to real series, metrics and a logger whose lines the test reads back. */
function setup(poll: (context: PollContext, call: number) => Promise<number>, intervalMs = 1000) {
  const metrics = createSelfMetrics();
  const series = new DataSeries(DATA_METRICS);
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  let calls = 0;
  const source: PollUnit = {
    id: 'flow_control/eu',
    labels,
    poll: async (context) => {
      calls += 1;
      const size = await poll(context, calls);
      return { samples: flowControlSamples('eu', [{ key: `k${size}`, waitListSize: size }], 10) };
    },
  };
  const group: PollGroup = { key: 'qstash/eu', cron: EVERY_SECOND, intervalMs, units: [source] };
  const poller = new Poller({
    groups: [group],
    series,
    metrics,
    logger: pino({ level: 'debug' }, sink),
  });
  const served = new Served(series, metrics);
  const text = async () => Promise.resolve(served.text());
  const value = async (pattern: RegExp) => Number(pattern.exec(await text())?.[1] ?? NaN);
  return { poller, group, series, metrics, text, value, lines, calls: () => calls };
}

// Scheduling is the subject here, so the clock is fake (node-cron, the poller's timers and Date alike):
// what a test sees after "1.1 s" does not depend on how busy the machine is. Half a second into a
// second, so that the start-up poll and the first cron tick never coincide.
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

describe('Poller', () => {
  it('polls at start-up, is ready after the first poll ends, and reports success', async () => {
    const t = setup(() => Promise.resolve(7));
    running = t.poller;
    expect(t.poller.ready).toBe(false);
    expect(await t.text()).not.toContain('upstash_up{');
    t.poller.start();
    await pass(100);
    expect(t.poller.ready).toBe(true);
    expect(await t.text()).toContain(
      'upstash_qstash_flow_control_wait_list_size{account="eu",flow_control_key="k7"} 7',
    );
    expect(await t.value(/^upstash_up\{[^}]*\} (\S+)$/m)).toBe(1);
    expect(await t.value(/^upstash_exporter_polls_total\{[^}]*\} (\S+)$/m)).toBeGreaterThanOrEqual(1);
    expect(t.poller.status()[0]?.outcome).toBe('ok');
  });

  it('replaces the series on each success, so a vanished key vanishes', async () => {
    const t = setup((_context, call) => Promise.resolve(call));
    running = t.poller;
    t.poller.start();
    await pass(1300);
    const body = await t.text();
    expect(body).not.toContain('flow_control_key="k1"');
    expect(body).toMatch(/flow_control_key="k[2-9]"/);
  });

  it('skips and counts a tick that finds the previous poll still running', async () => {
    const t = setup(async () => {
      await sleep(2300);
      return 1;
    });
    running = t.poller;
    t.poller.start();
    await pass(2100);
    expect(t.calls()).toBe(1);
    expect(await t.value(/^upstash_exporter_polls_skipped_total\{[^}]*\} (\S+)$/m)).toBeGreaterThanOrEqual(1);
    expect(t.lines.some((l) => l.msg === 'poll skipped' && l.reason === 'still_running')).toBe(true);
  });

  it('keeps the last good values for 3 intervals after the last success, then drops them', async () => {
    // intervalMs is what staleness counts in; a small one keeps this test short.
    const t = setup(
      (_context, call) =>
        call > 1
          ? Promise.reject(new HttpStatusError('GET', 'http://upstash.test/v2/flowControl/', 503))
          : Promise.resolve(5),
      600,
    );
    running = t.poller;
    t.poller.start();
    await pass(50);
    expect(t.series.has('flow_control/eu')).toBe(true);
    await pass(1050); // a failing tick has come, but 3 × 600 ms have not passed
    expect(await t.value(/^upstash_up\{[^}]*\} (\S+)$/m)).toBe(0);
    const failures = /^upstash_exporter_poll_failures_total\{[^}]*reason="server_error"\} (\S+)$/m;
    expect(await t.value(failures)).toBeGreaterThanOrEqual(1);
    expect(t.series.has('flow_control/eu')).toBe(true);
    await pass(1200);
    expect(t.series.has('flow_control/eu')).toBe(false);
    expect(await t.text()).not.toContain('upstash_qstash_flow_control_wait_list_size');
    expect(await t.text()).toContain('upstash_up{');
    expect(t.lines.some((l) => l.msg === 'series dropped: no successful poll for 3 intervals')).toBe(true);
  });

  // A poll that pages for longer than three intervals (a DLQ may page for a minute whatever
  // dlq_interval is) must not lose its series while it is still running and may succeed.
  it('keeps the series while a poll longer than the staleness window is in flight, and it succeeds', async () => {
    const t = setup(async (_context, call) => {
      if (call === 2) await sleep(2900);
      return call;
    }, 600);
    running = t.poller;
    t.poller.start();
    await pass(50);
    expect(t.series.has('flow_control/eu')).toBe(true);
    // The second poll starts at the first tick (0.5 s) and pages until 3.4 s, the staleness window
    // (1.8 s) passing meanwhile: none of the checks in between drops the first poll's values.
    for (let at = 50; at < 3000; at += 300) {
      await pass(300);
      expect(t.series.has('flow_control/eu')).toBe(true);
    }
    await pass(400);
    expect(await t.text()).toContain('flow_control_key="k2"');
    expect(t.lines.some((l) => l.msg === 'series dropped: no successful poll for 3 intervals')).toBe(false);
  });

  it('drops the series when that long poll fails, at its end, not before', async () => {
    const t = setup(async (_context, call) => {
      if (call === 1) return 1;
      await sleep(2900);
      throw new HttpStatusError('GET', 'http://upstash.test/v2/dlq', 503);
    }, 600);
    running = t.poller;
    t.poller.start();
    await pass(3300);
    expect(t.series.has('flow_control/eu')).toBe(true);
    await pass(150);
    expect(t.series.has('flow_control/eu')).toBe(false);
    expect(
      t.lines.filter((l) => l.msg === 'series dropped: no successful poll for 3 intervals'),
    ).toHaveLength(1);
  });

  it('waits out a Retry-After across ticks, counting them as skipped', async () => {
    const t = setup((_context, call) =>
      call === 1
        ? Promise.reject(new HttpStatusError('GET', 'http://upstash.test/v2/flowControl/', 429, 2200))
        : Promise.resolve(3),
    );
    running = t.poller;
    t.poller.start();
    await pass(1500);
    expect(t.calls()).toBe(1);
    expect(await t.value(/^upstash_exporter_poll_failures_total\{[^}]*reason="rate_limited"\} (\S+)$/m)).toBe(
      1,
    );
    expect(await t.value(/^upstash_exporter_polls_skipped_total\{[^}]*\} (\S+)$/m)).toBeGreaterThanOrEqual(1);
    await pass(2000);
    expect(t.calls()).toBeGreaterThanOrEqual(2);
    expect(await t.value(/^upstash_up\{[^}]*\} (\S+)$/m)).toBe(1);
  });

  it('counts an invalid response and logs the reason without crashing', async () => {
    const t = setup(() =>
      Promise.reject(
        new InvalidResponseError('GET', 'http://upstash.test/v2/flowControl/', 'malformed JSON'),
      ),
    );
    running = t.poller;
    t.poller.start();
    await pass(100);
    expect(t.poller.ready).toBe(true);
    expect(
      await t.value(/^upstash_exporter_poll_failures_total\{[^}]*reason="invalid_response"\} (\S+)$/m),
    ).toBeGreaterThanOrEqual(1);
    const failure = t.lines.find((l) => l.msg === 'poll failed');
    expect(failure).toMatchObject({
      source: 'flow_control',
      account: 'eu',
      reason: 'invalid_response',
      level: 30 + 10,
    });
  });

  it('aborts a poll in flight on stop, without counting it as a failure', async () => {
    const t = setup(
      async (context) =>
        new Promise<number>((_resolve, reject) => {
          context.signal.addEventListener('abort', () =>
            reject(new AbortedError('GET', 'http://upstash.test/')),
          );
        }),
    );
    t.poller.start();
    await pass(50);
    // On the fake clock: stop() ends the poll by aborting it, without waiting for any timer.
    const started = Date.now();
    await t.poller.stop();
    expect(Date.now()).toBe(started);
    expect(await t.text()).toMatch(/poll_failures_total\{[^}]*reason="network"\} 0/);
    expect(await t.text()).not.toContain('upstash_up{');
  });

  it('counts a fault of our own as internal, not as an Upstash failure, and logs it at error with its stack', async () => {
    const t = setup(() => Promise.reject(new TypeError('cannot read properties of undefined')));
    running = t.poller;
    t.poller.start();
    await pass(100);
    // At least the start-up poll (a cron tick may have come within the 100 ms too).
    expect(
      await t.value(/^upstash_exporter_poll_failures_total\{[^}]*reason="internal"\} (\S+)$/m),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await t.value(/^upstash_exporter_poll_failures_total\{[^}]*reason="invalid_response"\} (\S+)$/m),
    ).toBe(0);
    const line = t.lines.find((l) => l.msg === 'poll failed unexpectedly');
    expect(line).toMatchObject({ level: 50, reason: 'internal', err: { type: 'TypeError' } });
    expect((line?.err as { stack?: string } | undefined)?.stack).toContain('TypeError');
    expect(t.poller.status()[0]?.outcome).toBe('internal');
  });

  it('adds and removes units at run time, each with its series and health series', async () => {
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    t.poller.start();
    await pass(100);
    const labels = {
      source: 'redis_stats',
      account: 'main',
      database_id: 'db-new',
      qstash_id: '',
      index_id: '',
    };
    let newCalls = 0;
    t.poller.addUnit('qstash/eu', {
      id: 'redis_stats/main/db-new',
      labels,
      poll: async () => {
        newCalls += 1;
        return Promise.resolve({
          samples: flowControlSamples('main', [{ key: 'from-new', waitListSize: 4 }], 10),
        });
      },
    });
    // Polled from its first sighting, not only at the next tick (which may come within these 50 ms).
    await pass(50);
    expect(newCalls).toBeGreaterThanOrEqual(1);
    expect(await t.text()).toContain('flow_control_key="from-new"');
    expect(await t.text()).toMatch(
      /^upstash_up\{source="redis_stats",account="main",database_id="db-new",qstash_id="",index_id=""\} 1$/m,
    );
    expect(t.poller.status().map((s) => s.labels.database_id)).toEqual(['', 'db-new']);

    t.poller.removeUnit('redis_stats/main/db-new');
    const atRemoval = newCalls;
    const text = await t.text();
    expect(text).not.toContain('from-new');
    expect(text).not.toContain('db-new');
    expect(text).toMatch(
      /^upstash_up\{source="flow_control",account="eu",database_id="",qstash_id="",index_id=""\} 1$/m,
    );
    expect(t.poller.unitIds).toEqual(['flow_control/eu']);
    await pass(1100);
    expect(newCalls).toBe(atRemoval);
  });

  it("status() is plain data with the failure's reason and HTTP status only, never its URL or body text", async () => {
    const url = 'https://ops:url-secret@api.example/v2/redis/stats/db?token=query-secret';
    const t = setup((_context, call) =>
      Promise.reject(
        call === 1
          ? new HttpStatusError('GET', url, 401)
          : new InvalidResponseError('GET', url, 'body says body-secret'),
      ),
    );
    running = t.poller;
    const before = Date.now();
    t.poller.start();
    await pass(100);
    const [row] = t.poller.status();
    expect(row).toMatchObject({
      outcome: 'unauthorized',
      error: 'unauthorized (HTTP 401)',
      intervalMs: 1000,
    });
    expect(row?.lastDurationMs).toBeGreaterThanOrEqual(0);
    expect(row?.nextPollAt).toBeGreaterThan(before);
    // It crosses a thread boundary as it is: structuredClone throws on a function, and a Map would not
    // compare equal.
    expect(structuredClone(row)).toEqual(row);
    expect(JSON.stringify(t.poller.status())).not.toMatch(/secret/);
    // The next cron tick's poll fails otherwise: waited for, not timed.
    for (let i = 0; i < 100 && t.calls() < 2; i++) await pass(50);
    await pass(50);
    expect(t.poller.status()[0]?.error).toBe('invalid_response');
    expect(JSON.stringify(t.poller.status())).not.toMatch(/secret/);
  });

  it('a listing renaming a unit it keeps renames it on the status, and keeps its state', async () => {
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    t.poller.start();
    const unit = (name: string): PollUnit => ({
      id: 'redis_stats/main/db-1',
      labels: { source: 'redis_stats', account: 'main', database_id: 'db-1', qstash_id: '', index_id: '' },
      family: 'redis_stats/main',
      name,
      poll: async () => Promise.resolve({ samples: [] }),
    });
    t.poller.syncUnits('qstash/eu', 'redis_stats/main', [unit('cache')]);
    await pass(100);
    const first = t.poller.status().find((s) => s.labels.database_id === 'db-1');
    expect(first?.name).toBe('cache');
    t.poller.syncUnits('qstash/eu', 'redis_stats/main', [unit('cache-renamed')]);
    const renamed = t.poller.status().find((s) => s.labels.database_id === 'db-1');
    expect(renamed?.name).toBe('cache-renamed');
    expect(renamed?.lastSuccessAt).toBe(first?.lastSuccessAt);
  });

  it('abandons the poll in flight of a removed unit without recording it', async () => {
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    t.poller.start();
    let finish: (() => void) | undefined;
    t.poller.addUnit('qstash/eu', {
      id: 'redis_stats/main/db-slow',
      labels: { source: 'redis_stats', account: 'main', database_id: 'db-slow', qstash_id: '', index_id: '' },
      poll: async (context) => {
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        expect(context.signal.aborted).toBe(true);
        return { samples: flowControlSamples('main', [{ key: 'late', waitListSize: 1 }], 10) };
      },
    });
    await pass(20);
    t.poller.removeUnit('redis_stats/main/db-slow');
    finish?.();
    await pass(20);
    const text = await t.text();
    expect(text).not.toContain('late');
    expect(text).not.toContain('db-slow');
  });
});

describe('Poller, hostile input', () => {
  it('fails a poll that maps to two samples of one series as internal, keeping the last good series', async () => {
    let duplicate = false;
    const metrics = createSelfMetrics();
    const series = new DataSeries(DATA_METRICS);
    const poller = new Poller({
      groups: [
        {
          key: 'qstash/eu',
          cron: EVERY_SECOND,
          intervalMs: 1000,
          units: [
            {
              id: 'flow_control/eu/',
              labels,
              poll: async () => {
                const once = flowControlSamples('eu', [{ key: 'k', waitListSize: 1 }], 10);
                return Promise.resolve({ samples: duplicate ? [...once, ...once] : once });
              },
            },
          ],
        },
      ],
      series,
      metrics,
      logger: pino({ level: 'silent' }),
    });
    running = poller;
    poller.start();
    await pass(100);
    duplicate = true;
    await pass(1100);
    const text = new Served(series, metrics).text();
    expect(text).toMatch(/^upstash_exporter_poll_failures_total\{[^}]*reason="internal"\} [1-9]/m);
    expect(text).toContain('flow_control_key="k"} 1');
    expect(text.match(/wait_list_size\{[^}]*flow_control_key="k"/g)).toHaveLength(1);
  });

  it('says "series dropped" once: not again when a reload re-arms a unit that was already stale', async () => {
    const t = setup(
      (_context, call) =>
        call > 1
          ? Promise.reject(new HttpStatusError('GET', 'http://upstash.test/', 503))
          : Promise.resolve(1),
      200,
    );
    running = t.poller;
    t.poller.start();
    await pass(1300);
    const dropped = () =>
      t.lines.filter((l) => l.msg === 'series dropped: no successful poll for 3 intervals');
    expect(dropped()).toHaveLength(1);
    await t.poller.reconfigure([t.group]);
    await pass(50);
    expect(dropped()).toHaveLength(1);
  });

  it("a reload keeps a unit's state and polls it at its next tick, never at once; a new unit at once", async () => {
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    t.poller.start();
    await pass(100);
    const before = t.calls();
    const added: PollUnit = {
      id: 'flow_control/us/',
      labels: { ...labels, account: 'us' },
      poll: async () =>
        Promise.resolve({ samples: flowControlSamples('us', [{ key: 'u', waitListSize: 2 }], 10) }),
    };
    for (let i = 0; i < 20; i++)
      await t.poller.reconfigure([{ ...t.group, units: [...t.group.units, added] }]);
    await pass(20);
    // Twenty reloads polled nothing again (a scheduled tick may have fallen in the meantime).
    expect(t.calls() - before).toBeLessThanOrEqual(1);
    expect(await t.text()).toContain('flow_control_key="u"');
    expect(t.poller.status().find((s) => s.labels.account === 'eu')?.lastSuccessAt).toBeDefined();
    await t.poller.reconfigure([t.group]);
    expect(await t.text()).not.toContain('account="us"');
  });

  it('counts a rejected field at every poll, logs it once until it comes right, and forgets it with the unit', async () => {
    let rejecting = true;
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    t.poller.start();
    t.poller.addUnit('qstash/eu', {
      id: 'redis_stats/main/db-1',
      labels: { source: 'redis_stats', account: 'main', database_id: 'db-1', qstash_id: '', index_id: '' },
      poll: async () => Promise.resolve({ samples: [], rejectedFields: rejecting ? ['dailyproduce'] : [] }),
    });
    await pass(2100);
    const rejected =
      /^upstash_exporter_fields_rejected_total\{source="redis_stats",account="main",database_id="db-1",qstash_id="",index_id="",field="dailyproduce"\} (\d+)$/m;
    expect(await t.value(rejected)).toBeGreaterThanOrEqual(2);
    expect(t.lines.filter((l) => String(l.msg).startsWith('field rejected'))).toHaveLength(1);
    rejecting = false;
    await pass(1000);
    expect(t.lines.some((l) => l.msg === 'field accepted again' && l.field === 'dailyproduce')).toBe(true);
    t.poller.removeUnit('redis_stats/main/db-1');
    expect(await t.text()).not.toContain('fields_rejected_total{');
  });

  it("logs a poll's own lines at every poll that returns them, and the field they say not as a wrong type", async () => {
    let refusing = true;
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    t.poller.start();
    t.poller.addUnit('qstash/eu', {
      id: 'qstash_logs/eu/',
      labels: { source: 'qstash_logs', account: 'eu', database_id: '', qstash_id: '', index_id: '' },
      poll: async () =>
        Promise.resolve({
          samples: [],
          // A field said by a line (every poll) beside one of the wrong type (once until it comes right).
          rejectedFields: refusing ? ['time', 'responseStatus'] : ['responseStatus'],
          ...(refusing && { logs: [{ level: 'warn' as const, msg: 'refused', count: 2, field: 'time' }] }),
        }),
    });
    await pass(3100);
    const polls = t.lines.filter((l) => l.msg === 'poll succeeded' && l.source === 'qstash_logs').length;
    expect(polls).toBeGreaterThanOrEqual(3);
    const said = t.lines.filter((l) => l.msg === 'refused');
    expect(said).toHaveLength(polls);
    for (const line of said)
      expect(line).toMatchObject({
        level: 40,
        source: 'qstash_logs',
        account: 'eu',
        field: 'time',
        count: 2,
      });
    const wrongType = t.lines.filter((l) => String(l.msg).startsWith('field rejected'));
    expect(wrongType.map((l) => l.field)).toEqual(['responseStatus']);
    // Counted at every poll all the same.
    const time =
      /^upstash_exporter_fields_rejected_total\{source="qstash_logs",account="eu",database_id="",qstash_id="",index_id="",field="time"\} (\d+)$/m;
    expect(await t.value(time)).toBe(polls);
    refusing = false;
    await pass(2000);
    expect(t.lines.filter((l) => l.msg === 'refused')).toHaveLength(polls);
    // Nothing said it went wrong as a field, so nothing says it came right.
    expect(t.lines.some((l) => l.msg === 'field accepted again')).toBe(false);
  });

  it('counts the label values a capped label left out with those cut to length', async () => {
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    t.poller.addUnit('qstash/eu', {
      id: 'qstash_stats/main/q-1',
      labels: { source: 'qstash_stats', account: 'main', database_id: '', qstash_id: 'q-1', index_id: '' },
      poll: async () => Promise.resolve({ samples: [], labelValuesDropped: 3 }),
    });
    t.poller.start();
    await t.poller.settled();
    const truncated =
      /^upstash_exporter_label_values_truncated_total\{source="qstash_stats",account="main",database_id="",qstash_id="q-1",index_id=""\} (\d+)$/m;
    expect(await t.value(truncated)).toBe(3);
  });

  it("carries a unit's trouble in its data into its status row: rejected fields, cut values, a rise, the source's own; bounded", async () => {
    const t = setup(() => Promise.resolve(1));
    running = t.poller;
    let call = 0;
    t.poller.addUnit('qstash/eu', {
      id: 'dlq/main/',
      labels: { source: 'dlq', account: 'main', database_id: '', qstash_id: '', index_id: '' },
      poll: async () => {
        call++;
        return Promise.resolve({
          samples: [],
          rejectedFields: ['createdAt', 'createdAt'],
          labelValuesDropped: 2,
          watched: { 'dead-letter messages': call === 1 ? 10 : 12 },
          warnings: call === 1 ? ['x'.repeat(500)] : ['a', 'b', 'c', 'd'],
        });
      },
    });
    t.poller.start();
    await t.poller.settled();
    const status = () => t.poller.status().find((row) => row.id === 'dlq/main/')?.warnings;
    const first = status() ?? [];
    expect(first.slice(0, 2)).toEqual([
      'field rejected (wrong type upstream, skipped): createdAt',
      '2 label values cut to length or left out by a cap',
    ]);
    // Nothing rose yet; a source's long text is cut.
    expect(first[2]).toHaveLength(MAX_WARNING_LENGTH);
    expect(first[2]?.endsWith('…')).toBe(true);
    await pass(1000);
    await t.poller.settled();
    const second = status() ?? [];
    expect(second).toHaveLength(MAX_WARNINGS);
    expect(second[2]).toBe('dead-letter messages grew: 10 → 12');
    expect(second[MAX_WARNINGS - 1]).toBe('and 3 more warnings');
  });

  it('spreads a family over the interval after the start-up poll; discovery replaces it whole', async () => {
    const t = setup(() => Promise.resolve(1), 1000);
    running = t.poller;
    const polledAt = new Map<string, number[]>();
    const member = (id: string): PollUnit => ({
      id: `redis_stats/main/${id}`,
      labels: { source: 'redis_stats', account: 'main', database_id: id, qstash_id: '', index_id: '' },
      family: 'redis_stats/main',
      poll: async () => {
        polledAt.set(id, [...(polledAt.get(id) ?? []), Date.now()]);
        return Promise.resolve({ samples: [] });
      },
    });
    t.poller.start();
    t.poller.syncUnits('qstash/eu', 'redis_stats/main', ['a', 'b', 'c', 'd'].map(member));
    await pass(2300);
    // Each member: once at once (start-up), then once per tick at its own offset (0, 250, 500, 750 ms).
    const second = ['a', 'b', 'c', 'd'].map((id) => polledAt.get(id)?.[1] ?? NaN);
    expect(second.every(Number.isFinite)).toBe(true);
    const spreadMs = Math.max(...second) - Math.min(...second);
    expect(spreadMs).toBeGreaterThanOrEqual(600);
    expect(spreadMs).toBeLessThan(1000);
    t.poller.syncUnits('qstash/eu', 'redis_stats/main', ['b', 'e'].map(member));
    expect(t.poller.unitIds.sort()).toEqual(
      ['flow_control/eu', 'redis_stats/main/b', 'redis_stats/main/e'].sort(),
    );
  });
});
