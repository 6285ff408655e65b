import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startSimulator } from '../src/demo/simulator.js';
import { measureAccount, type AccountFigures, type AccountPlan } from './account.js';
import { startBareServer } from './bare-server.js';
import { measureEventWindow, type EventWindowFigure } from './event-window.js';
import { EXPORTER_MAIN, exporterEnv, startExporter, type ExporterProcess } from './exporter-process.js';
import { imageAllocatorEnv, type AllocatorEnv } from './image-env.js';
import { fetchBodies, measureIngest, type IngestFigure } from './ingest.js';
import { FULL_FLOOD, measureFlood, QUICK_FLOOD, type FloodFigures, type FloodPlan } from './flood.js';
import { compareLoad, runLoad, type ScrapeFigure } from './load.js';
import { memoryPoint, startCycles, V8_DEFAULTS, type MemoryRun } from './memory.js';
import { scaledState, simulatorOptions, type State } from './states.js';
import { measureUpstashCost, type CostFigures } from './upstash-cost.js';

/** How much of everything to do: the full run for BENCHMARKS.md, or the CI smoke run. */
export interface Plan {
  readonly largeScale: number;
  readonly scales: readonly number[];
  readonly connections: number;
  readonly loadSeconds: number;
  readonly warmupSeconds: number;
  readonly ingestBudgetMs: number;
  readonly exporterCostSeconds: number;
  readonly clientCostCycles: number;
  /** Poll cycles (one a second) of the large state before its memory is read again. */
  readonly pollCycles: number;
  /** ...unless the run has taken this long by then (the benchmark must stay under 4 minutes). */
  readonly cyclesDeadlineSeconds: number;
  /**
   * The CPU priority of the poll cycles' processes: 19 (the default), so that they do not disturb
   * what is timed meanwhile. The smoke test, which times nothing, runs them at 0: on a busy machine,
   * a process at 19 gets too little CPU to read a request within the exporter's own 5 s limit.
   */
  readonly cyclesNiceness?: number;
  readonly account: AccountPlan;
  /** Pages of 100 QStash log events in the event window whose RSS growth is measured (issue 30). */
  readonly eventWindowPages: number;
  /** Clients pipelining requests they never read, while a scraper opens a fresh connection each second. */
  readonly flood: FloodPlan;
}

export const FULL_PLAN: Plan = {
  largeScale: 100,
  scales: [1, 10, 100],
  connections: 16,
  loadSeconds: 3,
  warmupSeconds: 1,
  ingestBudgetMs: 600,
  exporterCostSeconds: 4,
  clientCostCycles: 100,
  pollCycles: 100,
  cyclesDeadlineSeconds: 150,
  // The account. Two cycles after start-up are measured: a 10 s interval keeps the phase near
  // 35 s (the spread goal is relative to the interval).
  account: {
    databases: 1000,
    flowControlKeys: 10_000,
    queues: 200,
    schedules: 2000,
    intervalSeconds: 10,
    concurrency: 8,
    connections: 16,
    turns: 3,
    rounds: 3,
  },
  eventWindowPages: 100,
  flood: FULL_FLOOD,
};

/** Every phase, on a tiny state and for about a second each: proves the benchmark still runs. */
export const QUICK_PLAN: Plan = {
  largeScale: 1,
  scales: [1],
  connections: 4,
  loadSeconds: 1,
  warmupSeconds: 0,
  ingestBudgetMs: 30,
  exporterCostSeconds: 1,
  clientCostCycles: 5,
  pollCycles: 3,
  cyclesDeadlineSeconds: 60,
  account: {
    databases: 5,
    flowControlKeys: 20,
    queues: 3,
    schedules: 5,
    intervalSeconds: 3,
    concurrency: 8,
    connections: 4,
    turns: 1,
    rounds: 1,
  },
  eventWindowPages: 10,
  flood: QUICK_FLOOD,
};

/** The machine the figures come from. */
export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
}

/** Everything one run measured. */
export interface Results {
  readonly quick: boolean;
  readonly machine: Machine;
  /** What BENCH_EXPORTER_ENV gave every exporter process of the run (none: as `node dist/main.js` runs). */
  readonly exporterEnv: Readonly<Record<string, string>>;
  readonly large: {
    readonly state: State;
    readonly series: number;
    readonly textBytes: number;
    readonly gzipBytes: number;
    readonly firstPollSeconds: number;
    readonly scrapes: readonly ScrapeFigure[];
    readonly memory: readonly MemoryRun[];
  };
  readonly ingest: Awaited<ReturnType<typeof measureIngest>>;
  readonly scaling: readonly ScalingFigure[];
  readonly cost: CostFigures;
  readonly account: AccountFigures;
  /**
   * The memory goals' phases again, the exporter in the image's allocator environment (Dockerfile),
   * against the same bare server in the bench's own environment: what the tuning buys, and costs.
   */
  readonly tuned: AllocatorEnv & { readonly large: Results['large']; readonly account: AccountFigures };
  readonly eventWindow: EventWindowFigure;
  /** The large state's exporter flooded with pipelined requests. */
  readonly flood: FloodFigures;
  readonly seconds: number;
}

/** Ingest cost of one multiple of the small state. */
export interface ScalingFigure {
  readonly state: State;
  readonly series: number;
  readonly ingest: IngestFigure;
}

const FORMATS = {
  text: {},
  openmetrics: { accept: 'application/openmetrics-text; version=1.0.0' },
  gzip: { 'accept-encoding': 'gzip' },
} as const;

/** Runs every phase of the benchmark; `log` hears about progress. */
export async function runBenchmarks(
  plan: Plan,
  log: (line: string) => void = () => undefined,
): Promise<Results> {
  const started = performance.now();
  const largeState = scaledState(plan.largeScale);
  log(
    `large state: ${largeState.flowControlKeys} keys, ${largeState.urlGroups} URL groups, ${largeState.databases.length} databases`,
  );
  // A hundred poll cycles take a hundred seconds: they run behind everything else, niced.
  log(`${plan.pollCycles} poll cycles of the large state, in the background`);
  const cycles = await startCycles(largeState, plan.pollCycles, plan.cyclesNiceness);
  const scraped = await scrapeLarge(plan, largeState, log);
  await cycles.mark();
  log('memory under V8 defaults');
  const v8Defaults = await memoryWithV8Defaults(plan, largeState);

  const scaling: ScalingFigure[] = [];
  let ingest: Results['ingest'] | undefined;
  for (const scale of plan.scales) {
    const state = scaledState(scale);
    log(`scaling ${state.label}`);
    const simulator = await startSimulator(simulatorOptions(state));
    try {
      const bodies = await fetchBodies(simulator, state);
      const figures = await measureIngest(state, bodies, { budgetMs: plan.ingestBudgetMs, rounds: 3 });
      if (scale === plan.largeScale) ingest = figures;
      scaling.push({ state, series: figures.whole.series, ingest: figures.whole });
    } finally {
      await simulator.stop();
    }
  }
  if (ingest === undefined) {
    const simulator = await startSimulator(simulatorOptions(largeState));
    try {
      ingest = await measureIngest(largeState, await fetchBodies(simulator, largeState), {
        budgetMs: plan.ingestBudgetMs,
        rounds: 3,
      });
    } finally {
      await simulator.stop();
    }
  }

  log('Upstash cost');
  const cost = await measureUpstashCost(scaledState(plan.scales.includes(10) ? 10 : plan.scales[0]!), {
    exporterSeconds: plan.exporterCostSeconds,
    clientCycles: plan.clientCostCycles,
  });
  log(`event window: ${plan.eventWindowPages * 100} QStash log events`);
  const eventWindow = await measureEventWindow(plan.eventWindowPages);
  log('account scale');
  const account = await measureAccount(plan.account, log);
  const allocator = imageAllocatorEnv(join(EXPORTER_MAIN, '..', '..'));
  const tunedLabel = Object.entries(allocator.env)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  log(`account scale again, the exporter under ${tunedLabel}`);
  const tunedAccount = await measureAccount(plan.account, log, allocator.env);
  log(`large state's scrapes again, the exporter under ${tunedLabel}`);
  const tunedLarge = await scrapeLarge(plan, largeState, log, allocator.env);
  log(`flood: ${plan.flood.connections} connections × ${plan.flood.pipelined} pipelined requests`);
  const flood = await measureFlood(largeState, plan.flood);
  log(`waiting for the ${plan.pollCycles} poll cycles`);
  const deadline = started + plan.cyclesDeadlineSeconds * 1000;
  const large = { ...scraped, memory: [...scraped.memory, await cycles.finish(deadline), v8Defaults] };
  return {
    quick: plan === QUICK_PLAN,
    machine: machine(),
    exporterEnv: exporterEnv(),
    large,
    ingest,
    scaling,
    cost,
    account,
    tuned: { ...allocator, account: tunedAccount, large: tunedLarge },
    eventWindow,
    flood,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The large state's scrape phase: the exporter's memory after its first poll and after the scrape runs. */
export async function scrapeLarge(
  plan: Plan,
  state: State,
  log: (line: string) => void,
  env: Readonly<Record<string, string>> = {},
): Promise<Results['large']> {
  const simulator = await startSimulator(simulatorOptions(state));
  try {
    const startedAt = performance.now();
    return await withExporter(simulator.url, state, env, async (exporter) => {
      const firstPollSeconds = (performance.now() - startedAt) / 1000;
      // Let start-up garbage go before reading the resting footprint.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const afterPoll = await memoryPoint(exporter, 'after the first poll');
      const text = await exporter.scrape();
      const formats = ['text', 'openmetrics', 'gzip'] as const;
      const scrapes = await compareScrapes(exporter, plan, formats, log);
      const serial = await compareScrapes(exporter, { ...plan, connections: 1 }, formats, log);
      const shipped: MemoryRun = {
        label: 'as shipped (the program sets its heap sizing)',
        points: [afterPoll, await memoryPoint(exporter, 'after the scrape runs')],
        peakRssBytes: exporter.memory()?.peakRssBytes ?? NaN,
      };
      return {
        state,
        series: countSeries(text.toString('utf8')),
        textBytes: text.length,
        gzipBytes: gzipSync(text).length,
        firstPollSeconds,
        scrapes: [
          ...scrapes,
          ...serial.map((s) => ({ ...s, label: `${s.label}, 1 client (like Prometheus)` })),
        ],
        memory: [shipped],
      };
    });
  } finally {
    await simulator.stop();
  }
}

/** The large state's memory under V8's own heap sizing, for comparison with the program's. */
async function memoryWithV8Defaults(plan: Plan, state: State): Promise<MemoryRun> {
  const simulator = await startSimulator(simulatorOptions(state));
  try {
    return await withExporter(
      simulator.url,
      state,
      {},
      async (exporter) => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const afterPoll = await memoryPoint(exporter, 'after the first poll');
        for (const headers of Object.values(FORMATS)) {
          await runLoad({
            url: `${exporter.url}/metrics`,
            headers,
            connections: plan.connections,
            durationSeconds: 1,
          });
        }
        return {
          label: `V8's own heap sizing (\`${V8_DEFAULTS.join(' ')}\`)`,
          points: [afterPoll, await memoryPoint(exporter, 'after the scrape runs')],
          peakRssBytes: exporter.memory()?.peakRssBytes ?? NaN,
        };
      },
      V8_DEFAULTS,
    );
  } finally {
    await simulator.stop();
  }
}

async function withExporter<T>(
  simulatorUrl: string,
  state: State,
  env: Readonly<Record<string, string>>,
  use: (exporter: ExporterProcess) => Promise<T>,
  nodeArgs: readonly string[] = [],
): Promise<T> {
  const exporter = await startExporter({ simulatorUrl, state, nodeArgs, env });
  try {
    return await use(exporter);
  } finally {
    await exporter.stop();
  }
}

/**
 * Loads the exporter and a bare server holding the exporter's own bytes, per format, in alternating
 * one-second turns (see compareLoad).
 */
async function compareScrapes(
  exporter: ExporterProcess,
  plan: Pick<Plan, 'connections' | 'loadSeconds' | 'warmupSeconds'>,
  formats: readonly (keyof typeof FORMATS)[],
  log: (line: string) => void,
  seconds = plan.loadSeconds,
): Promise<ScrapeFigure[]> {
  const bare = await startBareServer({
    text: await exporter.scrape(),
    openmetrics: await exporter.scrape(FORMATS.openmetrics),
    textGzip: await exporter.scrapeGzip(),
    openmetricsGzip: await exporter.scrapeGzip(FORMATS.openmetrics),
  });
  try {
    const figures: ScrapeFigure[] = [];
    for (const format of formats) {
      const options = {
        headers: { ...FORMATS[format] },
        connections: plan.connections,
        durationSeconds: 1,
        warmupSeconds: plan.warmupSeconds,
      };
      const { a: exporterResult, b: bareResult } = await compareLoad(
        { ...options, url: `${exporter.url}/metrics` },
        { ...options, url: `${bare.url}/metrics` },
        seconds,
      );
      log(
        `  ${format} ×${plan.connections}: exporter ${exporterResult.requestsPerSecond.toFixed(0)} req/s p99 ${exporterResult.p99Ms.toFixed(1)} ms, bare ${bareResult.requestsPerSecond.toFixed(0)} req/s p99 ${bareResult.p99Ms.toFixed(1)} ms`,
      );
      figures.push({
        label: format,
        connections: plan.connections,
        exporter: exporterResult,
        bare: bareResult,
      });
    }
    return figures;
  } finally {
    await bare.stop();
  }
}

function countSeries(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) if (line !== '' && !line.startsWith('#')) count++;
  return count;
}

function machine(): Machine {
  let cpuModel = 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // not Linux: leave it unknown
  }
  return { cpus: availableParallelism(), cpuModel, node: process.version };
}
