import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_QSTASH_INSTANCES, startSimulator, type Simulator } from '../src/demo/simulator.js';
import { startBareServer } from './bare-server.js';
import { procMemory, startExporter, type ExporterProcess } from './exporter-process.js';
import { compareLoad, runLoad, type LoadResult, type ScrapeFigure } from './load.js';
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
  /** One-second turns per side when the exporter and the bare server are compared while polls land. */
  readonly turns: number;
  /** Alternating rounds of the many-clients throughput comparison (its median is the figure). */
  readonly rounds: number;
  /** Stop after the two measured cycles (`bench/cycles.ts`): no comparison with the bare server. */
  readonly cyclesOnly?: boolean;
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
  /** The most RSS sampled (every 250 ms) from the spawn to the end of the phase. */
  readonly maxSampledRssBytes: number;
  readonly metricsBytes: number;
  /** The gzip body the exporter sends, and the same text gzipped as one stream (zlib's default level). */
  readonly gzipBytes: number;
  readonly oneStreamGzipBytes: number;
  /** Mean size of a database's stats body. */
  readonly statsBodyBytes: number;
  /** The first cycle after start-up, with no scrapes: what Upstash sees of the polls alone. */
  readonly quietCycle: CycleFigures;
  /** The next one, while /metrics is scraped flat out from before its tick to after the next. */
  readonly scrapedCycle: CycleFigures;
  /** Ticks on which a poll did not start during that cycle (`upstash_exporter_polls_skipped_total`). */
  readonly scrapedCycleSkips: number;
  /** The exporter's throughput during that cycle, and its failures. */
  readonly scrapedCycleLoad: readonly (LoadResult & { readonly label: string })[];
  /** One client against the bare server, per format, while polls land (issue 19, goal 1). */
  readonly serial: readonly ScrapeFigure[];
  /** Many clients against the bare server, per format: one figure per alternating round (goal 2). */
  readonly rounds: readonly { readonly label: string; readonly rounds: readonly ScrapeFigure[] }[];
  /** Every comparison above, flattened (each one's failures must be 0). */
  readonly scrapes: readonly ScrapeFigure[];
  readonly seconds: number;
}

/** Scrape formats loaded while polls land. */
const FORMATS = {
  text: {},
  openmetrics: { accept: 'application/openmetrics-text; version=1.0.0' },
  gzip: { 'accept-encoding': 'gzip' },
} as const;
/** The flat-out load during the measured cycle: half the clients uncompressed, half gzip (as Prometheus asks). */
const CYCLE_LOAD = [
  ['text', FORMATS.text],
  ['gzip', FORMATS.gzip],
] as const;
/** How long before the measured cycle's tick the flat-out load starts, and after the next tick it ends. */
const CYCLE_MARGIN_MS = 1000;

/**
 * Runs the exporter in its own process against a simulated account whose databases it discovers:
 * time to ready and memory; then one later poll cycle with nothing else going on, as Upstash sees it
 * (requests per path, how far the per-database polls are spread over the interval); then scrapes
 * flat out while the next cycle's polls land, and that cycle as Upstash saw it.
 */
export async function measureAccount(
  plan: AccountPlan,
  log: (line: string) => void = () => undefined,
  env: Readonly<Record<string, string>> = {},
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
      env,
      limits: {
        maxFlowControlKeys: Math.max(1000, state.flowControlKeys),
        maxUrlGroups: Math.max(1000, state.urlGroups),
        maxQueues: Math.max(1000, state.queues),
        maxSchedules: Math.max(1000, state.schedules),
      },
    });
    const sampler = sampleRss(exporter.pid);
    try {
      const up = await waitAllUp(exporter, units, 2 * intervalMs);
      const startupRequests = arrivals.countUntil(up.checkedAt);
      const memoryAtReady = { ...memoryOf(exporter.pid), ...up.heap };
      // BENCH_SMAPS_READY=<file>: what the resident memory at ready is made of, mapping by mapping.
      if (process.env.BENCH_SMAPS_READY !== undefined) {
        writeFileSync(process.env.BENCH_SMAPS_READY, readFileSync(`/proc/${exporter.pid}/smaps`, 'utf8'));
      }
      log(
        `  ready after ${(exporter.readyMs / 1000).toFixed(1)} s, all ${up.count} up after ${(up.ms / 1000).toFixed(1)} s`,
      );
      const text = await exporter.scrape();
      const openmetrics = await exporter.scrape({ accept: 'application/openmetrics-text; version=1.0.0' });
      const textGzip = await exporter.scrapeGzip();
      const openmetricsGzip = await exporter.scrapeGzip({
        accept: 'application/openmetrics-text; version=1.0.0',
      });
      const bare = await startBareServer({ text, openmetrics, textGzip, openmetricsGzip });
      try {
        // The first tick after ready begins a cycle of spread polls only: start-up is over by then.
        const quietTick = nextTick(wallNow(), intervalMs);
        const loadTick = quietTick + intervalMs;
        const leewayMs = Math.min(intervalMs / Math.max(1, state.databases.length) / 2, 50);
        // Issue 19, goal 3: scraped flat out from before the cycle's tick to after the next one.
        await sleep(Math.max(0, loadTick - CYCLE_MARGIN_MS - wallNow()));
        const skippedBefore = skippedTicks(await exporter.scrape());
        const cycleSeconds = (loadTick + intervalMs + CYCLE_MARGIN_MS - wallNow()) / 1000;
        const cycleLoad = await Promise.all(
          CYCLE_LOAD.map(async ([label, headers]) => ({
            label,
            ...(await runLoad({
              url: `${exporter.url}/metrics`,
              headers,
              connections: Math.max(1, plan.connections / CYCLE_LOAD.length),
              durationSeconds: Math.max(1, Math.round(cycleSeconds)),
            })),
          })),
        );
        await arrivals.waitForTick(loadTick + intervalMs, intervalMs);
        const afterCycle = await exporter.scrape();
        const scrapedCycleSkips = skippedTicks(afterCycle) - skippedBefore;
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
        log(
          `  scraped cycle: ${scrapedCycleSkips} skipped ticks; ${cycleLoad.map((l) => `${l.label} ${l.requestsPerSecond.toFixed(1)} req/s`).join(', ')}; poll worker restarts ${metricValue(afterCycle.toString('utf8'), 'upstash_exporter_poll_worker_restarts_total')}`,
        );
        // Goals 1 and 2: against the bare server, in alternating turns, while polls keep landing.
        const serial = plan.cyclesOnly
          ? []
          : await compareFormats(exporter.url, bare.url, 1, plan.turns, log);
        const rounds = plan.cyclesOnly ? [] : await roundsOfMany(exporter.url, bare.url, plan, log);
        const memoryAfterScrapes = memoryOf(exporter.pid);
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
          memoryAfterScrapes,
          maxSampledRssBytes: sampler.stop(),
          metricsBytes: text.length,
          gzipBytes: textGzip.length,
          oneStreamGzipBytes: gzipSync(text).length,
          statsBodyBytes,
          quietCycle: quiet,
          scrapedCycle: loaded,
          scrapedCycleSkips,
          scrapedCycleLoad: cycleLoad,
          serial,
          rounds,
          scrapes: [...serial, ...rounds.flatMap((r) => r.rounds)],
          seconds: (performance.now() - started) / 1000,
        };
      } finally {
        await bare.stop();
      }
    } finally {
      sampler.stop();
      await exporter.stop();
    }
  } finally {
    await simulator.stop();
  }
}

/**
 * The exporter and the bare server with `connections` clients, per format, in alternating one-second
 * turns (`turns` each), after a short warm-up of each.
 */
async function compareFormats(
  exporterUrl: string,
  bareUrl: string,
  connections: number,
  turns: number,
  log: (line: string) => void,
  formats: readonly (keyof typeof FORMATS)[] = ['text', 'openmetrics', 'gzip'],
  requests?: number,
): Promise<ScrapeFigure[]> {
  const figures: ScrapeFigure[] = [];
  for (const label of formats) {
    const options = {
      headers: { ...FORMATS[label] },
      connections,
      durationSeconds: 1,
      warmupSeconds: 0.5,
      ...(requests !== undefined && { requests }),
    };
    const { a, b } = await compareLoad(
      { ...options, url: `${exporterUrl}/metrics` },
      { ...options, url: `${bareUrl}/metrics` },
      turns,
    );
    log(
      `  ${label} ×${connections} while polls land: exporter ${a.requestsPerSecond.toFixed(1)} req/s p99 ${a.p99Ms.toFixed(1)} ms, bare ${b.requestsPerSecond.toFixed(1)} req/s p99 ${b.p99Ms.toFixed(1)} ms`,
    );
    figures.push({ label, connections, exporter: a, bare: b });
  }
  return figures;
}

/**
 * Responses per client in a turn of goal 2: a few seconds' worth of text (14 MB each) and of gzip,
 * on this machine, so that the responses in flight when a turn ends are few beside those counted.
 */
const MANY_RESPONSES_PER_CLIENT = { text: 3, gzip: 12 } as const;

/** Goal 2: `plan.rounds` alternating rounds (one turn each side) of many clients, per format. */
async function roundsOfMany(
  exporterUrl: string,
  bareUrl: string,
  plan: AccountPlan,
  log: (line: string) => void,
): Promise<{ label: string; rounds: ScrapeFigure[] }[]> {
  const out: { label: string; rounds: ScrapeFigure[] }[] = [];
  for (const label of ['text', 'gzip'] as const) {
    const rounds: ScrapeFigure[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      // Each turn a fixed number of responses per client, not a second: at 16 clients a text body
      // takes most of a second, and a one-second turn would count the few that happened to finish.
      const requests = plan.connections * MANY_RESPONSES_PER_CLIENT[label];
      const [figure] = await compareFormats(
        exporterUrl,
        bareUrl,
        plan.connections,
        1,
        log,
        [label],
        requests,
      );
      if (figure !== undefined) rounds.push(figure);
    }
    out.push({ label, rounds });
  }
  return out;
}

/** All of the exporter's skipped ticks so far. */
function skippedTicks(body: Buffer): number {
  let total = 0;
  for (const match of body
    .toString('utf8')
    .matchAll(/^upstash_exporter_polls_skipped_total\{[^}]*\} (\S+)$/gm))
    total += Number(match[1]);
  return total;
}

/**
 * Samples a process's RSS every 250 ms; `stop` ends it and answers the most it saw. With
 * `BENCH_SMAPS=<file>`, the process's /proc smaps at each new peak goes to that file: what the peak
 * is made of (the node binary, the V8 pages of both threads, each thread's malloc arena).
 */
function sampleRss(pid: number): { stop(): number } {
  let most = 0;
  const look = (): void => {
    const rss = procMemory(pid)?.rssBytes ?? 0;
    if (rss > most && process.env.BENCH_SMAPS !== undefined) {
      try {
        writeFileSync(process.env.BENCH_SMAPS, readFileSync(`/proc/${pid}/smaps`, 'utf8'));
      } catch {
        // The process has just exited: its last peak stays in the file.
      }
    }
    most = Math.max(most, rss);
  };
  look();
  const timer = setInterval(look, 250);
  return {
    stop() {
      clearInterval(timer);
      look();
      return most;
    },
  };
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
