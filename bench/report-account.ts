import type { AccountFigures, Memory } from './account.js';
import { fixed, kb, mark, mb } from './format.js';
import type { ScrapeFigure } from './load.js';
import type { CycleFigures } from './poll-cycles.js';

/** Issue 12's goals 3 (account scale) and 4 (no bursts). */
const GOALS = { readySeconds: 30, rssBytes: 150 * 1024 * 1024, scrapeRatio: 0.8, spread: 1 / 3 } as const;

const count = (value: number): string => value.toLocaleString('en-US');

function memoryCell(memory: Memory): string {
  return `${mb(memory.rssBytes)} (peak ${mb(memory.peakRssBytes)})`;
}

function scrapeRow(scrape: ScrapeFigure): string {
  const { exporter, bare } = scrape;
  const ratio = exporter.requestsPerSecond / bare.requestsPerSecond;
  return `| ${scrape.label} | ${scrape.connections} | ${fixed(exporter.requestsPerSecond)} | ${fixed(bare.requestsPerSecond)} | ${fixed(ratio, 2)} | ${fixed(exporter.p50Ms)} / ${fixed(exporter.p99Ms)} | ${fixed(bare.p50Ms)} / ${fixed(bare.p99Ms)} | ${exporter.failures + bare.failures} |`;
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
  const worstRatio = Math.min(
    ...account.scrapes.map((s) => s.exporter.requestsPerSecond / s.bare.requestsPerSecond),
  );
  return [
    '### Account scale',
    '',
    `Account state: ${count(databases)} databases discovered from the listing (${kb(account.statsBodyBytes)} of stats each), ${count(state.flowControlKeys)} flow-control keys, ${count(state.queues)} queues, ${count(state.schedules)} schedules, ${state.qstashInstances} QStash instances (and ${state.urlGroups} URL groups): ${count(units)} units, one Upstash request each per cycle; /metrics is ${mb(account.metricsBytes)} of text. The exporter runs as its own process with \`http.concurrency: ${account.concurrency}\`, every entry polled every ${account.intervalSeconds} s, so that two whole cycles after start-up fit in the phase (${fixed(account.seconds, 0)} s); the spread goal is relative to the interval. The first cycle after start-up runs with nothing else going on; during the next one, /metrics is scraped flat out (table below).`,
    '',
    '| figure | measured | goal | |',
    '|---|---|---|---|',
    `| start → /readyz 200 (every unit's first poll over) | ${fixed(account.readyzSeconds)} s | | |`,
    `| start → every unit up (\`upstash_up\` 1 for ${count(account.unitsUp)} of ${count(units)}) | ${fixed(account.allUpSeconds)} s | < ${GOALS.readySeconds} s | ${mark(ready)} |`,
    `| Upstash requests from start to then | ${count(account.startupRequests)} | | |`,
    ...cycleRows(account, account.quietCycle, 'first cycle after start-up'),
    ...cycleRows(account, account.scrapedCycle, 'next cycle, scraped flat out'),
    `| RSS once every unit is up (V8 heap used; external) | ${memoryCell(account.memoryAtReady)} (${mb(account.memoryAtReady.heapUsedBytes)}; ${mb(account.memoryAtReady.externalBytes)}) | < 150 MB | ${mark(account.memoryAtReady.rssBytes < GOALS.rssBytes)} |`,
    `| RSS after the scrape runs | ${memoryCell(account.memoryAfterScrapes)} | < 150 MB | ${mark(account.memoryAfterScrapes.rssBytes < GOALS.rssBytes)} |`,
    `| scrape throughput while polls land, exporter / bare server with the same bytes (worst format) | ${fixed(worstRatio, 2)} | ≥ ${GOALS.scrapeRatio} | ${mark(worstRatio >= GOALS.scrapeRatio)} |`,
    '',
    `Scrapes while the second cycle's polls land (a stats poll due every ${fixed((account.intervalSeconds * 1000) / Math.max(1, databases), 0)} ms): the exporter, then a bare node:http server answering the exporter's bytes from memory:`,
    '',
    '| format | clients | exporter req/s | bare req/s | ratio | exporter p50 / p99 ms | bare p50 / p99 ms | failures |',
    '|---|---|---|---|---|---|---|---|',
    ...account.scrapes.map(scrapeRow),
    '',
  ].join('\n');
}
