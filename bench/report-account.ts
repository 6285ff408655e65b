import type { AccountFigures, Memory } from './account.js';
import { fixed, kb, mark, mb } from './format.js';
import type { ScrapeFigure } from './load.js';
import type { CycleFigures } from './poll-cycles.js';

/** Issue 12's goals 3 (account scale) and 4 (no bursts), and issue 19's (nothing waits). */
const GOALS = {
  readySeconds: 30,
  rssBytes: 150 * 1024 * 1024,
  spread: 1 / 3,
  serialP99Ratio: 1.5,
  manyRatio: 0.8,
  polledShare: 0.95,
  peakRssBytes: 160 * 1024 * 1024,
} as const;

const count = (value: number): string => value.toLocaleString('en-US');

function memoryCell(memory: Memory): string {
  return `${mb(memory.rssBytes)} (peak ${mb(memory.peakRssBytes)})`;
}

/** Throughput of the exporter over the bare server's. */
export const ratio = (s: ScrapeFigure): number => s.exporter.requestsPerSecond / s.bare.requestsPerSecond;
/** p99 latency of the exporter over the bare server's. */
export const p99Ratio = (s: ScrapeFigure): number => s.exporter.p99Ms / s.bare.p99Ms;

/** The median, NaN of none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function scrapeRow(scrape: ScrapeFigure, goal?: boolean): string {
  const { exporter, bare } = scrape;
  const verdict = goal === undefined ? '(reported)' : mark(goal);
  return `| ${scrape.label} | ${scrape.connections} | ${fixed(exporter.requestsPerSecond)} | ${fixed(bare.requestsPerSecond)} | ${fixed(ratio(scrape), 2)} | ${fixed(exporter.p50Ms)} / ${fixed(exporter.p99Ms)} | ${fixed(bare.p50Ms)} / ${fixed(bare.p99Ms)} | ${fixed(p99Ratio(scrape), 2)} ${verdict} | ${exporter.failures + bare.failures} |`;
}

function cycleRows(account: AccountFigures, cycle: CycleFigures, which: string): string[] {
  const { units } = account;
  const databases = account.state.databases.length;
  const spread = cycle.statsSpanMs / (account.intervalSeconds * 1000);
  const each =
    cycle.requests === units &&
    cycle.paths === units &&
    cycle.duplicates === 0 &&
    cycle.statsRequests === databases;
  const even = databases / account.intervalSeconds;
  return [
    `| ${which}: Upstash requests / distinct paths / duplicates | ${count(cycle.requests)} / ${count(cycle.paths)} / ${cycle.duplicates} | ${count(units)} / ${count(units)} / 0 (each unit once) | ${mark(each)} |`,
    `| ${which}: its ${count(cycle.statsRequests)} stats requests, first to last (most within one second; evenly spread: ${fixed(even, 0)}) | ${fixed(cycle.statsSpanMs / 1000)} s of ${account.intervalSeconds} s = **${fixed(spread, 2)}** (${cycle.statsPeakPerSecond}) | ≥ ${fixed(GOALS.spread, 2)} of the interval | ${mark(spread >= GOALS.spread && cycle.statsRequests === databases)} |`,
  ];
}

/** The account phase as one Markdown section: each figure beside its goal. */
export function renderAccount(account: AccountFigures): string {
  const { state, units } = account;
  const databases = state.databases.length;
  const ready = account.unitsUp >= units && account.allUpSeconds < GOALS.readySeconds;
  const cycle = account.scrapedCycle;
  // Distinct stats paths of the cycle: the databases polled at least once.
  const statsPolled = cycle.statsRequests - Math.min(cycle.duplicates, cycle.statsRequests);
  const polledShare = statsPolled / Math.max(1, databases);
  const serialGoal = account.serial.filter((s) => s.label !== 'gzip');
  const worstSerial = Math.max(...serialGoal.map(p99Ratio));
  const manyMedians = account.rounds.map((r) => ({ label: r.label, median: median(r.rounds.map(ratio)) }));
  const worstMany = Math.min(...manyMedians.map((m) => m.median));
  const peak = Math.max(account.memoryAfterScrapes.peakRssBytes, account.maxSampledRssBytes);
  return [
    '### Account scale',
    '',
    `Account state: ${count(databases)} databases discovered from the listing (${kb(account.statsBodyBytes)} of stats each), ${count(state.flowControlKeys)} flow-control keys, ${count(state.queues)} queues, ${count(state.schedules)} schedules, ${state.qstashInstances} QStash instances (and ${state.urlGroups} URL groups): ${count(units)} units, one Upstash request each per cycle; /metrics is ${mb(account.metricsBytes)} of text, ${kb(account.gzipBytes)} gzipped as the exporter sends it (each block of lines deflated once, on its own: ${kb(account.oneStreamGzipBytes)} as one gzip stream), and the bare server answers those very bytes. The exporter runs as its own process (\`node dist/main.js\`) with \`http.concurrency: ${account.concurrency}\`, every entry polled every ${account.intervalSeconds} s (a stats poll due every ${fixed((account.intervalSeconds * 1000) / Math.max(1, databases), 0)} ms); the phase took ${fixed(account.seconds, 0)} s. The first cycle after start-up runs with nothing else going on; the next one is scraped flat out from a second before its tick to a second after the next (${account.scrapedCycleLoad.map((l) => `${l.label}: ${fixed(l.requestsPerSecond)} req/s, ${l.failures} failures`).join('; ')}); then the exporter and a bare node:http server answering its bytes from memory are compared in alternating turns while polls keep landing: one-second turns for one client, and for 16 clients (goal 2) turns of a fixed number of responses per client (3 of text, 12 of gzip), timed from the first request to the last response.`,
    '',
    '| figure | measured | goal | |',
    '|---|---|---|---|',
    `| start → /readyz 200 (every unit's first poll over) | ${fixed(account.readyzSeconds)} s | | |`,
    `| start → every unit up (\`upstash_up\` 1 for ${count(account.unitsUp)} of ${count(units)}) | ${fixed(account.allUpSeconds)} s | < ${GOALS.readySeconds} s | ${mark(ready)} |`,
    `| Upstash requests from start to then | ${count(account.startupRequests)} | | |`,
    ...cycleRows(account, account.quietCycle, 'first cycle after start-up'),
    ...cycleRows(account, cycle, 'next cycle, scraped flat out'),
    `| RSS once every unit is up (V8 heap used; external: the serving thread's) | ${memoryCell(account.memoryAtReady)} (${mb(account.memoryAtReady.heapUsedBytes)}; ${mb(account.memoryAtReady.externalBytes)}) | < 150 MB | ${mark(account.memoryAtReady.rssBytes < GOALS.rssBytes)} |`,
    '',
    "Issue 19's goals (nothing waits):",
    '',
    '| goal | measured | target | |',
    '|---|---|---|---|',
    `| 1. one client while polls land: scrape p99 / the bare server's, text and OpenMetrics (gzip reported) | ${account.serial.map((s) => `${s.label} ${fixed(p99Ratio(s), 2)}×`).join(', ')} | ≤ ${GOALS.serialP99Ratio}× | ${mark(worstSerial <= GOALS.serialP99Ratio)} |`,
    `| 2. ${account.rounds[0]?.rounds[0]?.connections ?? 16} clients while polls land: throughput / the bare server's, median of ${account.rounds[0]?.rounds.length ?? 0} alternating rounds | ${manyMedians
      .map(
        (m) =>
          `${m.label} ${fixed(m.median, 2)} (rounds ${
            account.rounds
              .find((r) => r.label === m.label)
              ?.rounds.map((s) => fixed(ratio(s), 2))
              .join(', ') ?? ''
          })`,
      )
      .join('; ')} | ≥ ${GOALS.manyRatio} | ${mark(worstMany >= GOALS.manyRatio)} |`,
    `| 3. scraped flat out: databases polled in the cycle / twice / ticks skipped | ${count(statsPolled)} of ${count(databases)} (${fixed(polledShare * 100, 1)} %) / ${cycle.duplicates} / ${account.scrapedCycleSkips} | ≥ ${GOALS.polledShare * 100} % / 0 / 0 | ${mark(polledShare >= GOALS.polledShare && cycle.duplicates === 0 && account.scrapedCycleSkips === 0)} |`,
    `| 4. RSS throughout (VmHWM from start to the end of the phase; most sampled every 250 ms) | ${mb(peak)} (${mb(account.maxSampledRssBytes)}); after the scrapes ${mb(account.memoryAfterScrapes.rssBytes)} | < 160 MB | ${mark(peak < GOALS.peakRssBytes)} |`,
    '',
    "The comparisons behind goals 1 and 2 (p99 ratio verdicts are goal 1's, one client; the many-client rows are the rounds of goal 2):",
    '',
    '| format | clients | exporter req/s | bare req/s | ratio | exporter p50 / p99 ms | bare p50 / p99 ms | p99 ratio | failures |',
    '|---|---|---|---|---|---|---|---|---|',
    ...account.serial.map((s) =>
      scrapeRow(s, s.label === 'gzip' ? undefined : p99Ratio(s) <= GOALS.serialP99Ratio),
    ),
    ...account.rounds.flatMap((r) => r.rounds.map((s) => scrapeRow(s))),
    '',
  ].join('\n');
}
