import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator } from '../src/demo/simulator.js';
import { startExporter } from './exporter-process.js';
import { logWindowEvent } from './ingest.js';
import { scaledState, simulatorOptions } from './states.js';

// Issue 30's memory goal: the exporter's RSS grows by less than 5 MB while it polls a window of
// 10,000 QStash log events (100 pages of 100). The exporter runs as shipped, polling only
// `qstash_logs`; once its first (empty) poll is done, the simulator's log is given the window, and
// the exporter's VmRSS is read before the next poll and once it has read the window's last page.

/** What the event window phase measured. */
export interface EventWindowFigure {
  readonly events: number;
  readonly pages: number;
  /** VmRSS before the poll that read the window, and after it. */
  readonly rssBeforeBytes: number;
  readonly rssAfterBytes: number;
  /** VmHWM after the poll (reset just before it), minus VmRSS before it: the poll's highest; NaN when it cannot be reset. */
  readonly peakGrowthBytes: number;
  /** The errors counted (upstash_qstash_delivery_errors_total, summed): the window, counted once. */
  readonly counted: number;
}

const PER_PAGE = 100;
/** How long after the last page the process is left before its RSS is read (the page's parsing, the counters). */
const SETTLE_MS = 1000;

/** Polls a window of `pages` × 100 log events once, reading the exporter's RSS around it. */
export async function measureEventWindow(pages: number): Promise<EventWindowFigure> {
  const events = pages * PER_PAGE;
  const state = scaledState(1);
  let logPages = 0;
  let lastPageAt = 0;
  const simulator = await startSimulator({
    ...simulatorOptions(state),
    // Real time: the exporter counts the events from its start on (its W) up to now.
    frozen: false,
    onRequest: (route, path) => {
      if (route === 'qstash_logs' && path.includes('state=ERROR')) {
        logPages++;
        lastPageAt = performance.now();
      }
    },
  });
  simulator.setQstashLogs([]);
  try {
    const exporter = await startExporter({
      simulatorUrl: simulator.url,
      state,
      events: { interval: '2s', maxPages: pages },
    });
    try {
      // Events after the exporter's W (its start, before it was ready), up to now, newest first.
      const from = Date.now();
      await sleep(1000);
      const span = Math.max(1, Date.now() - from);
      const window = Array.from({ length: events }, (_, n) =>
        logWindowEvent(n, Date.now() - Math.floor((n * span) / events)),
      );
      // Read between two polls: the exporter idles on its 2 s interval.
      await untilQuiet(() => lastPageAt, 300);
      // The peak (VmHWM) counts from here: writing 5 to clear_refs resets it (Linux; else it is the
      // process's peak since its start, and says nothing of this poll: reported as n/a).
      const peakReset = resetPeak(exporter.pid);
      const before = exporter.memory();
      const seen = logPages;
      simulator.setQstashLogs(window);
      await until(() => logPages - seen >= pages, 120_000);
      await sleep(SETTLE_MS);
      const after = exporter.memory();
      const counted = sumOf(
        (await exporter.scrape()).toString('utf8'),
        'upstash_qstash_delivery_errors_total',
      );
      return {
        events,
        pages,
        rssBeforeBytes: before?.rssBytes ?? NaN,
        rssAfterBytes: after?.rssBytes ?? NaN,
        peakGrowthBytes: peakReset ? (after?.peakRssBytes ?? NaN) - (before?.rssBytes ?? NaN) : NaN,
        counted,
      };
    } finally {
      await exporter.stop();
    }
  } finally {
    await simulator.stop();
  }
}

/** Resets the peak RSS of `pid` to its current RSS; whether it could. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Waits until `done` holds, checking every 50 ms; fails after `timeoutMs`. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`event window: not done within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Waits until no page was asked for `quietMs` (the exporter between two polls). */
async function untilQuiet(lastAt: () => number, quietMs: number): Promise<void> {
  while (performance.now() - lastAt() < quietMs) await sleep(50);
}

/** The sum of every sample of `metric` in an exposition. */
function sumOf(text: string, metric: string): number {
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(`${metric}{`) || line.startsWith(`${metric} `))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}
