import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import type { App } from '../../src/app.js';
import type { Fault, Route } from '../../src/demo/simulator.js';
import { find, valueOf } from '../helpers/exposition-parser.js';
import { startHarness } from '../helpers/harness.js';

// A compressed day: 30 sources (10 QStash accounts × 2 sources, 10 databases) polled every second
// (node-cron's finest grain) for SOAK_SECONDS, against a simulator whose clock runs 100× fast so that
// keys and URL groups churn every 0.3 s, with a fault injected every two seconds and /metrics scraped
// four times a second. Sampled every 5 s after a full GC: RSS, heap, open sockets, timers, series.
// Passes when nothing grows after warm-up beyond noise, the series count stays bounded and no
// promise rejection goes unhandled.

const SECONDS = Number(process.env.SOAK_SECONDS ?? 150);
const WARM_UP_S = Math.min(30, SECONDS / 4);
const SAMPLE_EVERY_MS = 5_000;
const MB = 1024 * 1024;

interface Sample {
  t: number;
  rssMB: number;
  heapMB: number;
  sockets: number;
  timers: number;
  handles: number;
  series: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * The process's RSS, and the heap and handles of both threads: this one (the HTTP server, the
 * simulator) and the poll worker's (its Upstash sockets, timers and parsing), each heap after a full
 * collection.
 */
async function measure(app: App, t: number, series: number): Promise<Sample> {
  gc?.();
  const worker = await app.pollWorkerStats();
  if (worker === undefined) throw new Error('no poll worker runs');
  const memory = process.memoryUsage();
  const resources = process.getActiveResourcesInfo();
  const count = (type: string): number => resources.filter((r) => r === type).length;
  return {
    t,
    rssMB: Math.round((memory.rss / MB) * 10) / 10,
    heapMB: Math.round(((memory.heapUsed + worker.heapUsedBytes) / MB) * 10) / 10,
    sockets: count('TCPSocketWrap') + count('TCPWRAP') + worker.sockets,
    timers: count('Timeout') + worker.timers,
    handles: resources.length + worker.handles,
    series,
  };
}

const FAULTS: Fault[] = [
  { kind: 'status', status: 500, times: 2 },
  { kind: 'status', status: 429, retryAfter: '1', times: 1 },
  { kind: 'reset', times: 2 },
  { kind: 'hang', times: 1 },
  { kind: 'body', body: '{"broken', times: 2 },
  { kind: 'status', status: 401, times: 1 },
];
const ROUTES: Route[] = ['flow_control', 'url_groups', 'redis_stats'];

test(`soak: ${SECONDS}s of polling 30 sources every second with churn and faults`, async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on('unhandledRejection', onUnhandled);
  const started = Date.now();
  const h = await startHarness({
    intervalSeconds: 1,
    qstashAccounts: 10,
    databases: Array.from({ length: 10 }, (_, i) => `db-${i}`),
    logLevel: 'info',
    http: { timeoutMs: 800, retries: 1, concurrency: 4 },
    limits: { maxFlowControlKeys: 40, maxUrlGroups: 30, maxCommandsPerDatabase: 20 },
    sim: {
      churn: true,
      flowControlKeys: 48,
      urlGroups: 24,
      pointsPerSeries: 10,
      now: () => started + (Date.now() - started) * 100,
    },
  });
  const samples: Sample[] = [];
  let scrapes = 0;
  let maxSeries = 0;
  let lastSeries = 0;
  const run = { stop: false };
  try {
    const scraper = (async () => {
      while (!run.stop) {
        const { samples: parsed } = await h.scrape();
        scrapes++;
        lastSeries = parsed.filter(
          (s) => s.name.startsWith('upstash_qstash_') || s.name.startsWith('upstash_redis_'),
        ).length;
        maxSeries = Math.max(maxSeries, lastSeries);
        // Keep the captured log from growing with the run: only its size over time matters here.
        h.logs.length = 0;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    let faultIndex = 0;
    const faults = setInterval(() => {
      const fault = FAULTS[faultIndex % FAULTS.length]!;
      h.sim.setFault(ROUTES[faultIndex % ROUTES.length]!, fault);
      faultIndex++;
    }, 2_000);
    const end = started + SECONDS * 1000;
    samples.push(await measure(h.app, 0, 0));
    while (Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_EVERY_MS));
      samples.push(await measure(h.app, Math.round((Date.now() - started) / 1000), lastSeries));
    }
    clearInterval(faults);
    run.stop = true;
    await scraper;

    const { samples: final } = await h.scrape();
    const polls = find(final, 'upstash_exporter_polls_total').reduce((sum, s) => sum + s.value, 0);
    const failed = find(final, 'upstash_exporter_poll_failures_total').reduce((sum, s) => sum + s.value, 0);
    const skipped = find(final, 'upstash_exporter_polls_skipped_total').reduce((sum, s) => sum + s.value, 0);
    const warm = samples.filter((s) => s.t >= WARM_UP_S);
    const first = warm[0]!;
    const last = warm.at(-1)!;
    const maxOf = (key: keyof Sample): number => Math.max(...warm.map((s) => s[key]));
    const report = {
      seconds: SECONDS,
      sources: 30,
      polls,
      failed,
      skipped,
      scrapes,
      maxSeries,
      start: samples[0],
      afterWarmUp: first,
      end: last,
      max: {
        rssMB: maxOf('rssMB'),
        heapMB: maxOf('heapMB'),
        sockets: maxOf('sockets'),
        timers: maxOf('timers'),
      },
      unhandledRejections: unhandled.length,
      samples,
    };
    console.log(`soak report: ${JSON.stringify({ ...report, samples: undefined }, null, 2)}`);
    if (process.env.SOAK_REPORT !== undefined)
      writeFileSync(process.env.SOAK_REPORT, JSON.stringify(report, null, 2));

    expect(unhandled).toEqual([]);
    // An unhandled rejection in the poll worker ends it: the death would be logged.
    expect(h.logs.filter((line) => line.includes('the poll worker died'))).toEqual([]);
    // Thousands of polls: at least 70% of one per source per second (ticks skipped for Retry-After or
    // a poll still running make up some of the rest).
    expect(polls).toBeGreaterThan(SECONDS * 30 * 0.7);
    expect(failed).toBeGreaterThan(0);
    // Bounded series: per QStash account at most 40 keys × 7 (wait list, paused, parallelism max and
    // in use, rate max, dispatched, period) + 30 groups × 3 + 4 counts; per database at most 40 stats
    // series, 20 commands (max_commands_per_database) and 12 from the listing; the database count.
    expect(maxSeries).toBeLessThanOrEqual(10 * (40 * 7 + 2 + 30 * 3 + 2) + 10 * (40 + 20 + 12) + 1);
    // No growth after warm-up beyond noise (heap measured after a full GC when available).
    expect(last.heapMB - first.heapMB).toBeLessThan(gc === undefined ? 40 : 10);
    expect(last.rssMB - first.rssMB).toBeLessThan(60);
    // Sockets: at most `concurrency` towards the simulator on each side, plus a scrape or two.
    expect(maxOf('sockets')).toBeLessThanOrEqual(4 * 2 + 6);
    expect(last.timers - first.timers).toBeLessThanOrEqual(10);
    expect(valueOf(final, 'upstash_exporter_build_info', { version: '0.0.0-test' })).toBe(1);
  } finally {
    run.stop = true;
    process.off('unhandledRejection', onUnhandled);
    await h.stop();
  }
});
