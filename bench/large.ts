import { loadavg } from 'node:os';
import { FULL_PLAN, scrapeLarge } from './benchmarks.js';
import { EXPORTER_MAIN, exporterEnv } from './exporter-process.js';
import { p99Ratio, ratio } from './report-account.js';
import { scaledState } from './states.js';

// The large state's scrape phase alone (`npm run bench`'s section 1, "as shipped", without the poll
// cycles that run behind it there), for the build BENCH_EXPORTER_MAIN names under BENCH_EXPORTER_ENV:
// run it alternately for two builds or environments. Prints one JSON line; writes nothing.
const started = performance.now();
const loadAtStart = loadavg()[0]!;
const large = await scrapeLarge(FULL_PLAN, scaledState(FULL_PLAN.largeScale), (line) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`),
);
const mb = (bytes: number): number => +(bytes / 2 ** 20).toFixed(1);
const fixed = (value: number): number => +value.toFixed(2);
const [run] = large.memory;
console.log(
  JSON.stringify({
    main: EXPORTER_MAIN,
    env: exporterEnv(),
    loadAverage: [loadAtStart, loadavg()[0]!].map(fixed),
    rssMB: Object.fromEntries((run?.points ?? []).map((p) => [p.label, mb(p.rssBytes)])),
    peakRssMB: mb(run?.peakRssBytes ?? NaN),
    throughput: Object.fromEntries(large.scrapes.map((s) => [s.label, fixed(ratio(s))])),
    p99Ratio: Object.fromEntries(large.scrapes.map((s) => [s.label, fixed(p99Ratio(s))])),
  }),
);
