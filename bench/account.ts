import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_QSTASH_INSTANCES, startSimulator, type Simulator } from '../src/demo/simulator.js';
import { startBareServer, type BareBodies } from './bare-server.js';
import { procMemory, startExporter, type ExporterProcess } from './exporter-process.js';
import { runLoad, type ScrapeFigure } from './load.js';
import { AUTHORIZATION } from './ingest.js';
import { metricValue } from './memory.js';
import { ArrivalLog, nextTick, wallNow, type CycleFigures } from './poll-cycles.js';
import {
  accountSimulatorOptions,
  accountState,
  accountUnits,
  type AccountSize,
  type AccountState,
} from './states.js';

/** How the account phase runs: the account's size, the exporter's settings, and the scrape load. */
export interface AccountPlan extends AccountSize {
  /** Poll interval of both entries, in seconds (a divisor of 60); the spread is measured against it. */
  readonly intervalSeconds: number;
  /** The exporter's `http.concurrency`. */
  readonly concurrency: number;
  readonly connections: number;
  /** Length of each scrape run (exporter, then bare server, per format), from the second cycle's tick. */
  readonly loadSeconds: number;
}

/** Resident set size, now and at its peak. */
export interface Memory {
  readonly rssBytes: number;
  readonly peakRssBytes: number;
}

/** The exporter's memory once every unit is up: RSS, and V8's view of it from its own /metrics. */
export interface ReadyMemory extends Memory {
  readonly heapUsedBytes: number;
  readonly externalBytes: number;
}

/** Everything the account phase measured. */
export interface AccountFigures {
  readonly state: AccountState;
  /** Units the exporter polls: one Upstash request each per cycle. */
  readonly units: number;
  readonly intervalSeconds: number;
  readonly concurrency: number;
  /** From spawning the process to its first 200 from /readyz (every unit's first poll over). */
  readonly readyzSeconds: number;
  /** From spawning the process to `upstash_up` being 1 for every unit. */
  readonly allUpSeconds: number;
  /** `upstash_up` series at 1 when the exporter was judged ready (all of them unless some failed). */
  readonly unitsUp: number;
  /** Upstash requests from the spawn to that moment. */
  readonly startupRequests: number;
  readonly memoryAtReady: ReadyMemory;
  /** After the scrape runs. */
  readonly memoryAfterScrapes: Memory;
  readonly metricsBytes: number;
  /** Mean size of a database's stats body. */
  readonly statsBodyBytes: number;
  /** The first cycle after start-up, with no scrapes: what Upstash sees of the polls alone. */
  readonly quietCycle: CycleFigures;
  /** The next one, while /metrics is scraped flat out. */
  readonly scrapedCycle: CycleFigures;
  readonly scrapes: readonly ScrapeFigure[];
  readonly seconds: number;
}

/** Scrape formats loaded while polls land. */
const FORMATS = { text: {}, gzip: { 'accept-encoding': 'gzip' } } as const;

/**
 * Runs the exporter in its own process against a simulated account whose databases it discovers:
 * time to ready and memory; then one later poll cycle with nothing else going on, as Upstash sees it
 * (requests per path, how far the per-database polls are spread over the interval); then scrapes
 * flat out while the next cycle's polls land, and that cycle as Upstash saw it.
 */
export async function measureAccount(
  plan: AccountPlan,
  log: (line: string) => void = () => undefined,
): Promise<AccountFigures> {
  const started = performance.now();
  const state = accountState(plan);
  const units = accountUnits(state);
  const intervalMs = plan.intervalSeconds * 1000;
  const arrivals = new ArrivalLog();
  let recording = false;
  const simulator = await startSimulator({
    ...accountSimulatorOptions(state),
    onRequest: (route, path) => {
      if (recording) arrivals.record(route, path);
    },
  });
  try {
    // The simulator makes each body once (frozen), taking a few ms per database: done before the
    // exporter starts, so start-up measures the exporter, not the fake Upstash.
    const statsBodyBytes = await warmUp(simulator, state, plan.concurrency);
    recording = true;
    log(
      `account: ${units} units, interval ${plan.intervalSeconds} s, http.concurrency ${plan.concurrency} (simulator warm after ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    const exporter = await startExporter({
      simulatorUrl: simulator.url,
      state,
      interval: `${plan.intervalSeconds}s`,
      discovery: { concurrency: plan.concurrency },
      limits: {
        maxFlowControlKeys: Math.max(1000, state.flowControlKeys),
        maxUrlGroups: Math.max(1000, state.urlGroups),
        maxQueues: Math.max(1000, state.queues),
        maxSchedules: Math.max(1000, state.schedules),
      },
    });
    try {
      const up = await waitAllUp(exporter, units, 2 * intervalMs);
      const startupRequests = arrivals.countUntil(up.checkedAt);
      const memoryAtReady = { ...memoryOf(exporter.pid), ...up.heap };
      log(
        `  ready after ${(exporter.readyMs / 1000).toFixed(1)} s, all ${up.count} up after ${(up.ms / 1000).toFixed(1)} s`,
      );
      const text = await exporter.scrape();
      const openmetrics = await exporter.scrape({ accept: 'application/openmetrics-text; version=1.0.0' });
      // The first tick after ready begins a cycle of spread polls only: start-up is over by then.
      const quietTick = nextTick(wallNow(), intervalMs);
      const loadTick = quietTick + intervalMs;
      const leewayMs = Math.min(intervalMs / Math.max(1, state.databases.length) / 2, 50);
      await arrivals.waitForTick(loadTick, intervalMs);
      const scrapes = await scrapeWhilePolling(exporter, { text, openmetrics }, plan, log);
      await arrivals.waitForTick(loadTick + intervalMs, intervalMs);
      const quiet = arrivals.cycle(quietTick, loadTick, intervalMs, leewayMs);
      const loaded = arrivals.cycle(loadTick, loadTick + intervalMs, intervalMs, leewayMs);
      for (const [label, cycle] of [
        ['quiet', quiet],
        ['scraped', loaded],
      ] as const) {
        log(
          `  ${label} cycle: ${cycle.requests} requests for ${cycle.paths} paths (${cycle.duplicates} duplicates), stats spread over ${(cycle.statsSpanMs / 1000).toFixed(1)} s of ${plan.intervalSeconds} s, at most ${cycle.statsPeakPerSecond} in a second`,
        );
      }
      return {
        state,
        units,
        intervalSeconds: plan.intervalSeconds,
        concurrency: plan.concurrency,
        readyzSeconds: exporter.readyMs / 1000,
        allUpSeconds: up.ms / 1000,
        unitsUp: up.count,
        startupRequests,
        memoryAtReady,
        memoryAfterScrapes: memoryOf(exporter.pid),
        metricsBytes: text.length,
        statsBodyBytes,
        quietCycle: quiet,
        scrapedCycle: loaded,
        scrapes,
        seconds: (performance.now() - started) / 1000,
      };
    } finally {
      await exporter.stop();
    }
  } finally {
    await simulator.stop();
  }
}

/** Loads the exporter, then a bare server holding its bytes, per format, while polls land. */
async function scrapeWhilePolling(
  exporter: ExporterProcess,
  bodies: BareBodies,
  plan: AccountPlan,
  log: (line: string) => void,
): Promise<ScrapeFigure[]> {
  const bare = await startBareServer(bodies);
  try {
    const scrapes: ScrapeFigure[] = [];
    for (const [label, headers] of Object.entries(FORMATS)) {
      const options = { headers, connections: plan.connections, durationSeconds: plan.loadSeconds };
      const exporterResult = await runLoad({ ...options, url: `${exporter.url}/metrics` });
      const bareResult = await runLoad({ ...options, url: `${bare.url}/metrics` });
      log(
        `  ${label} ×${plan.connections} while polls land: exporter ${exporterResult.requestsPerSecond.toFixed(1)} req/s, bare ${bareResult.requestsPerSecond.toFixed(1)} req/s`,
      );
      scrapes.push({ label, connections: plan.connections, exporter: exporterResult, bare: bareResult });
    }
    return scrapes;
  } finally {
    await bare.stop();
  }
}

/**
 * GETs every body the exporter will ask for once, `concurrency` at a time; answers the mean size of
 * a database's stats body.
 */
async function warmUp(simulator: Simulator, state: AccountState, concurrency: number): Promise<number> {
  const bearer = { authorization: AUTHORIZATION.qstash };
  const basic = { authorization: AUTHORIZATION.management };
  const paths: [string, Record<string, string>][] = [
    ...['/v2/flowControl/', '/v2/topics', '/v2/queues', '/v2/schedules', '/v2/globalParallelism'].map(
      (path): [string, Record<string, string>] => [path, bearer],
    ),
    ['/v2/redis/databases', basic],
    ['/v2/qstash/users', basic],
    ...state.databases.map((id): [string, Record<string, string>] => [
      `/v2/redis/stats/${encodeURIComponent(id)}`,
      basic,
    ]),
    ...DEMO_QSTASH_INSTANCES.map((i): [string, Record<string, string>] => [
      `/v2/qstash/stats/${i.id}`,
      basic,
    ]),
  ];
  let statsBytes = 0;
  const worker = async (): Promise<void> => {
    for (let next = paths.shift(); next !== undefined; next = paths.shift()) {
      const response = await fetch(simulator.url + next[0], { headers: next[1] });
      const bytes = (await response.arrayBuffer()).byteLength;
      if (response.status !== 200) throw new Error(`simulator answered ${response.status} to ${next[0]}`);
      if (next[0].startsWith('/v2/redis/stats/')) statsBytes += bytes;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statsBytes / Math.max(1, state.databases.length);
}

/**
 * Waits until `upstash_up` is 1 for every unit (or `patienceMs` after /readyz), checking /metrics
 * from /readyz on; the time is that of the first check that saw them all, from the spawn.
 */
async function waitAllUp(
  exporter: ExporterProcess,
  units: number,
  patienceMs: number,
): Promise<{
  ms: number;
  count: number;
  checkedAt: number;
  heap: { heapUsedBytes: number; externalBytes: number };
}> {
  const readyAt = performance.now();
  let text = '';
  let count = 0;
  let checked = readyAt;
  while (performance.now() - readyAt < patienceMs) {
    checked = performance.now();
    text = (await exporter.scrape()).toString('utf8');
    count = text.match(/^upstash_up\{[^}]*\} 1$/gm)?.length ?? 0;
    if (count >= units) break;
    await sleep(200);
  }
  return {
    ms: exporter.readyMs + (checked - readyAt),
    count,
    checkedAt: performance.timeOrigin + checked,
    heap: {
      heapUsedBytes: metricValue(text, 'nodejs_heap_size_used_bytes'),
      externalBytes: metricValue(text, 'nodejs_external_memory_bytes'),
    },
  };
}

/** The value of a metric's first sample in an exposition. */
function memoryOf(pid: number): Memory {
  return procMemory(pid) ?? { rssBytes: NaN, peakRssBytes: NaN };
}
