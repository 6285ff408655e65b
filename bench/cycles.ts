import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { FULL_PLAN } from './benchmarks.js';
import { measureAccount } from './account.js';
import { EXPORTER_MAIN, exporterEnv } from './exporter-process.js';
import { median, p99Ratio, ratio } from './report-account.js';

// The account phase's two measured poll cycles alone (the quiet one, and the one scraped flat out),
// for the build BENCH_EXPORTER_MAIN names (default: this tree's dist/) under BENCH_EXPORTER_ENV: run
// it alternately for two builds (or two environments) to tell a change from a loaded machine. With
// `--compare`, the whole account phase as `npm run bench` runs it: the one-client and 16-client
// comparisons with the bare server too (about a minute more). Prints one JSON line; writes nothing.
const { values } = parseArgs({ options: { compare: { type: 'boolean', default: false } } });
const started = performance.now();
const loadAtStart = loadavg()[0]!;
const figures = await measureAccount({ ...FULL_PLAN.account, cyclesOnly: !values.compare }, (line) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`),
);
const { quietCycle, scrapedCycle, scrapedCycleSkips, scrapedCycleLoad, memoryAtReady } = figures;
const mb = (bytes: number): number => +(bytes / 2 ** 20).toFixed(1);
const fixed = (value: number): number => +value.toFixed(2);
console.log(
  JSON.stringify({
    main: EXPORTER_MAIN,
    env: exporterEnv(),
    loadAverage: [loadAtStart, loadavg()[0]!].map(fixed),
    readySeconds: figures.readyzSeconds,
    allUpSeconds: figures.allUpSeconds,
    rssAtReadyMB: mb(memoryAtReady.rssBytes),
    externalAtReadyMB: mb(memoryAtReady.externalBytes),
    heapUsedAtReadyMB: mb(memoryAtReady.heapUsedBytes),
    quietCycle,
    scrapedCycle,
    scrapedCycleSkips,
    scrapedCycleLoad: scrapedCycleLoad.map((l) => ({
      label: l.label,
      requestsPerSecond: +l.requestsPerSecond.toFixed(1),
      failures: l.failures,
    })),
    maxSampledRssMB: mb(figures.maxSampledRssBytes),
    // VmHWM from the spawn to the end of the phase: the peak `npm run bench` reports (goal 4).
    peakRssMB: mb(figures.memoryAfterScrapes.peakRssBytes),
    rssAfterScrapesMB: mb(figures.memoryAfterScrapes.rssBytes),
    ...(values.compare && {
      oneClientP99Ratio: Object.fromEntries(figures.serial.map((s) => [s.label, fixed(p99Ratio(s))])),
      manyClientsThroughput: Object.fromEntries(
        figures.rounds.map((r) => [r.label, fixed(median(r.rounds.map(ratio)))]),
      ),
      failures: figures.scrapes.reduce((n, s) => n + s.exporter.failures + s.bare.failures, 0),
    }),
  }),
);
