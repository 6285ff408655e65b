import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { DataSeries } from '../src/metrics/data-series.js';
import { flowControlSamples } from '../src/metrics/samples.js';
import { createSelfMetrics, renderRegistry } from '../src/metrics/self-metrics.js';
import { Poller, type PollContext, type PollSource } from '../src/poller.js';
import { AbortedError, HttpStatusError, InvalidResponseError } from '../src/upstash/errors.js';

const EVERY_SECOND = '* * * * * *';
const labels = { source: 'flow_control', account: 'eu', database_id: '' };
const sleep = async (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A poller wired to real series, metrics and a logger whose lines the test reads back. */
function setup(poll: (context: PollContext, call: number) => Promise<number>, intervalMs = 1000) {
  const registry = new Registry();
  const metrics = createSelfMetrics(registry, { version: 'test' });
  const series = new DataSeries();
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  let calls = 0;
  const source: PollSource = {
    id: 'flow_control/eu',
    labels,
    poll: async (context) => {
      calls += 1;
      const size = await poll(context, calls);
      return flowControlSamples('eu', [{ key: `k${size}`, waitListSize: size }], 10);
    },
  };
  const poller = new Poller({
    jobs: [{ cron: EVERY_SECOND, intervalMs, sources: [source] }],
    series,
    metrics,
    logger: pino({ level: 'debug' }, sink),
  });
  const text = async () => `${series.render('text')}${await renderRegistry(registry, 'text')}`;
  const value = async (pattern: RegExp) => Number(pattern.exec(await text())?.[1] ?? NaN);
  return { poller, series, text, value, lines, calls: () => calls };
}

let running: Poller | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('Poller', () => {
  it('polls at start-up, is ready after the first poll ends, and reports success', async () => {
    const t = setup(() => Promise.resolve(7));
    running = t.poller;
    expect(t.poller.ready).toBe(false);
    expect(await t.text()).not.toContain('upstash_up{');
    t.poller.start();
    await sleep(100);
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
    await sleep(1300);
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
    await sleep(2100);
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
    await sleep(50);
    expect(t.series.has('flow_control/eu')).toBe(true);
    await sleep(1050); // a failing tick has come, but 3 × 600 ms have not passed
    expect(await t.value(/^upstash_up\{[^}]*\} (\S+)$/m)).toBe(0);
    const failures = /^upstash_exporter_poll_failures_total\{[^}]*reason="server_error"\} (\S+)$/m;
    expect(await t.value(failures)).toBeGreaterThanOrEqual(1);
    expect(t.series.has('flow_control/eu')).toBe(true);
    await sleep(1200);
    expect(t.series.has('flow_control/eu')).toBe(false);
    expect(await t.text()).not.toContain('upstash_qstash_flow_control_wait_list_size');
    expect(await t.text()).toContain('upstash_up{');
    expect(t.lines.some((l) => l.msg === 'series dropped: no successful poll for 3 intervals')).toBe(true);
  });

  it('waits out a Retry-After across ticks, counting them as skipped', async () => {
    const t = setup((_context, call) =>
      call === 1
        ? Promise.reject(new HttpStatusError('GET', 'http://upstash.test/v2/flowControl/', 429, 2200))
        : Promise.resolve(3),
    );
    running = t.poller;
    t.poller.start();
    await sleep(1500);
    expect(t.calls()).toBe(1);
    expect(await t.value(/^upstash_exporter_poll_failures_total\{[^}]*reason="rate_limited"\} (\S+)$/m)).toBe(
      1,
    );
    expect(await t.value(/^upstash_exporter_polls_skipped_total\{[^}]*\} (\S+)$/m)).toBeGreaterThanOrEqual(1);
    await sleep(2000);
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
    await sleep(100);
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
    await sleep(50);
    const started = Date.now();
    await t.poller.stop();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await t.text()).toMatch(/poll_failures_total\{[^}]*reason="network"\} 0/);
    expect(await t.text()).not.toContain('upstash_up{');
  });
});
