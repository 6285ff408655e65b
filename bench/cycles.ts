import { FULL_PLAN } from './benchmarks.js';
import { measureAccount } from './account.js';
import { EXPORTER_MAIN } from './exporter-process.js';

// The account phase's two measured poll cycles alone (the quiet one, and the one scraped flat out),
// for the build BENCH_EXPORTER_MAIN names (default: this tree's dist/): run it alternately for two
// builds to tell a regression from a loaded machine. Prints one JSON line; writes nothing.
const started = performance.now();
const figures = await measureAccount({ ...FULL_PLAN.account, cyclesOnly: true }, (line) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`),
);
const { quietCycle, scrapedCycle, scrapedCycleSkips, scrapedCycleLoad, memoryAtReady } = figures;
console.log(
  JSON.stringify({
    main: EXPORTER_MAIN,
    readySeconds: figures.readyzSeconds,
    allUpSeconds: figures.allUpSeconds,
    rssAtReadyMB: +(memoryAtReady.rssBytes / 2 ** 20).toFixed(1),
    externalAtReadyMB: +(memoryAtReady.externalBytes / 2 ** 20).toFixed(1),
    heapUsedAtReadyMB: +(memoryAtReady.heapUsedBytes / 2 ** 20).toFixed(1),
    quietCycle,
    scrapedCycle,
    scrapedCycleSkips,
    scrapedCycleLoad: scrapedCycleLoad.map((l) => ({
      label: l.label,
      requestsPerSecond: +l.requestsPerSecond.toFixed(1),
      failures: l.failures,
    })),
    maxSampledRssMB: +(figures.maxSampledRssBytes / 2 ** 20).toFixed(1),
  }),
);
