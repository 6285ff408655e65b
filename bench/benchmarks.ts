import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { gzipSync } from 'node:zlib';
import { startSimulator } from '../src/demo/simulator.js';
import { measureAccount, type AccountFigures, type AccountPlan } from './account.js';
import { startBareServer } from './bare-server.js';
import { startExporter, type ExporterProcess } from './exporter-process.js';
import { fetchBodies, measureIngest, type IngestFigure } from './ingest.js';
import { runLoad, type LoadResult } from './load.js';
import { scaledState, simulatorOptions, type State } from './states.js';
import { measureUpstashCost, type CostFigures } from './upstash-cost.js';

/** How much of everything to do: the full run for BENCHMARKS.md, or the CI smoke run. */
export interface Plan {
  readonly largeScale: number;
  readonly scales: readonly number[];
  readonly connections: number;
  readonly loadSeconds: number;
  readonly scalingLoadSeconds: number;
  readonly warmupSeconds: number;
  readonly ingestBudgetMs: number;
  readonly exporterCostSeconds: number;
  readonly clientCostCycles: number;
  readonly account: AccountPlan;
}

export const FULL_PLAN: Plan = {
  largeScale: 100,
  scales: [1, 10, 100],
  connections: 16,
  loadSeconds: 5,
  scalingLoadSeconds: 3,
  warmupSeconds: 1,
  ingestBudgetMs: 600,
  exporterCostSeconds: 4,
  clientCostCycles: 100,
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
    loadSeconds: 3,
  },
};

/** Every phase, on a tiny state and for about a second each: proves the benchmark still runs. */
export const QUICK_PLAN: Plan = {
  largeScale: 1,
  scales: [1],
  connections: 4,
  loadSeconds: 1,
  scalingLoadSeconds: 1,
  warmupSeconds: 0,
  ingestBudgetMs: 30,
  exporterCostSeconds: 1,
  clientCostCycles: 5,
  account: {
    databases: 5,
    flowControlKeys: 20,
    queues: 3,
    schedules: 5,
    intervalSeconds: 3,
    concurrency: 8,
    connections: 4,
    loadSeconds: 1,
  },
};

/** The machine the figures come from. */
export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
}

/** One scrape variant against the bare server answering the same bytes. */
export interface ScrapeFigure {
  readonly label: string;
  readonly connections: number;
  readonly exporter: LoadResult;
  readonly bare: LoadResult;
}

/** Everything one run measured. */
export interface Results {
  readonly quick: boolean;
  readonly machine: Machine;
  readonly large: {
    readonly state: State;
    readonly series: number;
    readonly textBytes: number;
    readonly gzipBytes: number;
    readonly firstPollSeconds: number;
    readonly scrapes: readonly ScrapeFigure[];
    readonly memory: readonly MemoryFigures[];
  };
  readonly ingest: ReturnType<typeof measureIngest>;
  readonly scaling: readonly ScalingFigure[];
  readonly cost: CostFigures;
  readonly account: AccountFigures;
  readonly seconds: number;
}

/** Memory of the exporter process holding the large state. */
export interface MemoryFigures {
  readonly nodeArgs: string;
  readonly rssAfterLoadBytes: number;
  readonly rssAfterScrapesBytes: number;
  readonly peakRssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly newSpaceBytes: number;
  readonly externalBytes: number;
}

/** V8's young generation is the largest single part of the footprint: also measured capped. */
const SMALL_NEW_SPACE = ['--max-semi-space-size=2'];

/** Scrape and ingest cost of one multiple of the small state. */
export interface ScalingFigure {
  readonly state: State;
  readonly series: number;
  readonly scrape: ScrapeFigure;
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
  const large = await scrapeLarge(plan, largeState, log);

  const scaling: ScalingFigure[] = [];
  let ingest: Results['ingest'] | undefined;
  for (const scale of plan.scales) {
    const state = scaledState(scale);
    log(`scaling ${state.label}`);
    const simulator = await startSimulator(simulatorOptions(state));
    try {
      const bodies = await fetchBodies(simulator, state);
      const figures = measureIngest(state, bodies, { budgetMs: plan.ingestBudgetMs, rounds: 3 });
      if (scale === plan.largeScale) ingest = figures;
      const scrape =
        scale === plan.largeScale
          ? large.scrapes[0]!
          : await withExporter(simulator.url, state, async (exporter) => {
              const [figure] = await compareScrapes(exporter, plan, ['text'], plan.scalingLoadSeconds, log);
              return figure!;
            });
      scaling.push({ state, series: figures.whole.series, scrape, ingest: figures.whole });
    } finally {
      await simulator.stop();
    }
  }
  if (ingest === undefined) {
    const simulator = await startSimulator(simulatorOptions(largeState));
    try {
      ingest = measureIngest(largeState, await fetchBodies(simulator, largeState), {
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
  log('account scale');
  const account = await measureAccount(plan.account, log);
  return {
    quick: plan === QUICK_PLAN,
    machine: machine(),
    large,
    ingest,
    scaling,
    cost,
    account,
    seconds: (performance.now() - started) / 1000,
  };
}

async function scrapeLarge(plan: Plan, state: State, log: (line: string) => void): Promise<Results['large']> {
  const simulator = await startSimulator(simulatorOptions(state));
  try {
    const startedAt = performance.now();
    return await withExporter(simulator.url, state, async (exporter) => {
      const firstPollSeconds = (performance.now() - startedAt) / 1000;
      // Let start-up garbage go before reading the resting footprint.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const rssAfterLoadBytes = exporter.memory()?.rssBytes ?? NaN;
      const text = await exporter.scrape();
      const scrapes = await compareScrapes(
        exporter,
        plan,
        ['text', 'openmetrics', 'gzip'],
        plan.loadSeconds,
        log,
      );
      const serial = await compareScrapes(
        exporter,
        { ...plan, connections: 1 },
        ['gzip'],
        plan.loadSeconds,
        log,
      );
      const memory = await memoryAfterScrapes(exporter, '(none)', rssAfterLoadBytes);
      log('memory with a small young generation');
      const capped = await withExporter(
        simulator.url,
        state,
        async (small) => {
          const rssAfterLoad = small.memory()?.rssBytes ?? NaN;
          for (const headers of Object.values(FORMATS)) {
            await runLoad({
              url: `${small.url}/metrics`,
              headers,
              connections: plan.connections,
              durationSeconds: 1,
            });
          }
          return memoryAfterScrapes(small, SMALL_NEW_SPACE.join(' '), rssAfterLoad);
        },
        SMALL_NEW_SPACE,
      );
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
        memory: [memory, capped],
      };
    });
  } finally {
    await simulator.stop();
  }
}

async function withExporter<T>(
  simulatorUrl: string,
  state: State,
  use: (exporter: ExporterProcess) => Promise<T>,
  nodeArgs: readonly string[] = [],
): Promise<T> {
  const exporter = await startExporter({ simulatorUrl, state, nodeArgs });
  try {
    return await use(exporter);
  } finally {
    await exporter.stop();
  }
}

/** Loads the exporter and a bare server holding the exporter's own bytes, one after the other, per format. */
async function compareScrapes(
  exporter: ExporterProcess,
  plan: Plan,
  formats: readonly (keyof typeof FORMATS)[],
  seconds: number,
  log: (line: string) => void,
): Promise<ScrapeFigure[]> {
  const bare = await startBareServer({
    text: await exporter.scrape(),
    openmetrics: await exporter.scrape(FORMATS.openmetrics),
  });
  try {
    const figures: ScrapeFigure[] = [];
    for (const format of formats) {
      const options = {
        headers: { ...FORMATS[format] },
        connections: plan.connections,
        durationSeconds: seconds,
        warmupSeconds: plan.warmupSeconds,
      };
      const exporterResult = await runLoad({ ...options, url: `${exporter.url}/metrics` });
      // Let the exporter finish whatever the run left queued before the bare server is measured.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const bareResult = await runLoad({ ...options, url: `${bare.url}/metrics` });
      log(
        `  ${format} ×${plan.connections}: exporter ${exporterResult.requestsPerSecond.toFixed(0)} req/s, bare ${bareResult.requestsPerSecond.toFixed(0)} req/s`,
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

async function memoryAfterScrapes(
  exporter: ExporterProcess,
  nodeArgs: string,
  rssAfterLoadBytes: number,
): Promise<MemoryFigures> {
  const after = exporter.memory();
  const text = (await exporter.scrape()).toString('utf8');
  return {
    nodeArgs,
    rssAfterLoadBytes,
    rssAfterScrapesBytes: after?.rssBytes ?? NaN,
    peakRssBytes: after?.peakRssBytes ?? NaN,
    heapUsedBytes: metricValue(text, 'nodejs_heap_size_used_bytes'),
    heapTotalBytes: metricValue(text, 'nodejs_heap_size_total_bytes'),
    newSpaceBytes: metricValue(text, 'nodejs_heap_space_size_total_bytes\\{space="new"\\}'),
    externalBytes: metricValue(text, 'nodejs_external_memory_bytes'),
  };
}

function metricValue(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return Number(match?.[1] ?? NaN);
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
