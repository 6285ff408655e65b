import type { Results } from './benchmarks.js';
import type { EventWindowFigure } from './event-window.js';
import type { IngestFigure } from './ingest.js';
import { fixed, kb, mark, mb } from './format.js';
import type { ScrapeFigure } from './load.js';
import type { MemoryRun } from './memory.js';
import { renderAccount } from './report-account.js';
import { renderFlood } from './report-flood.js';
import { renderGoals } from './report-goals.js';

const GOALS = {
  scrapeRatio: 0.8,
  p99Ratio: 1.25,
  ingestRatio: 2,
  rssBytes: 120 * 1024 * 1024,
  eventWindowGrowthBytes: 5 * 1024 * 1024,
} as const;

const p99Ratio = (figure: ScrapeFigure): number => figure.exporter.p99Ms / figure.bare.p99Ms;

function scrapeRow(figure: ScrapeFigure): string {
  const { exporter, bare } = figure;
  const ratio = exporter.requestsPerSecond / bare.requestsPerSecond;
  const failures = exporter.failures + bare.failures;
  return `| ${figure.label} | ${figure.connections} | ${kb(exporter.bytesPerResponse)} | ${fixed(exporter.requestsPerSecond, 0)} | ${fixed(bare.requestsPerSecond, 0)} | ${fixed(ratio, 2)} | ${fixed(exporter.p50Ms, 2)} / ${fixed(exporter.p99Ms, 2)} | ${fixed(bare.p50Ms, 2)} / ${fixed(bare.p99Ms, 2)} | ${fixed(p99Ratio(figure), 2)} ${mark(p99Ratio(figure) <= GOALS.p99Ratio)} | ${failures} |`;
}

function memoryRows(run: MemoryRun, goal: boolean): string[] {
  return run.points.map(
    (m) =>
      `| ${run.label} | ${m.label} | ${mb(m.rssBytes)} | ${mb(m.heapUsedBytes)} / ${mb(m.heapTotalBytes)} | ${mb(m.youngGenerationBytes)} | ${mb(m.externalBytes)} | ${goal ? mark(m.rssBytes < GOALS.rssBytes) : '(comparison)'} |`,
  );
}

function ingestRow(figure: IngestFigure): string {
  const ratio = figure.ingestMicros / figure.jsonParseMicros;
  return `| ${figure.label} | ${kb(figure.bytes)} | ${figure.series} | ${fixed(figure.jsonParseMicros / 1000, 2)} | ${fixed(figure.ingestMicros / 1000, 2)} | ${fixed(ratio, 2)} | ${mark(ratio <= GOALS.ingestRatio)} |`;
}

/** The results as Markdown: one table per question of the issue, each with its goal. */
export function renderReport(results: Results): string {
  const { machine, large, ingest, scaling, cost } = results;
  const lines: string[] = [];
  lines.push(
    `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}. Run took ${fixed(results.seconds, 0)} s${results.quick ? ' (quick plan: tiny state, not for conclusions)' : ''}.`,
    '',
    environmentLine(results.exporterEnv, results.tuned.shipped),
    '',
    renderGoals(results),
    `Large state: ${large.state.flowControlKeys} flow-control keys, ${large.state.urlGroups} URL groups (up to ${large.state.maxEndpoints} endpoints), ${large.state.databases.length} databases with ${large.state.pointsPerSeries} points per series: ${large.series} series, ${kb(large.textBytes)} of text (${kb(large.gzipBytes)} gzipped). First poll of every source done ${fixed(large.firstPollSeconds, 1)} s after the process started.`,
    '',
    '### 1. Memory (exporter process holding the large state, as `node dist/main.js` runs, in the environment above)',
    '',
    '| run | when | RSS | V8 heap used / total | of which young generation | external (buffers) | goal: RSS < 120 MB |',
    '|---|---|---|---|---|---|---|',
    ...large.memory.flatMap((run, index) => memoryRows(run, index < large.memory.length - 1)),
    '',
    ...large.memory.map((run) => `Peak RSS (VmHWM) of "${run.label}": ${mb(run.peakRssBytes)}.`),
    '',
    growthLine(large.memory),
    '',
    '### 2. Scrape latency and throughput (exporter process vs a bare node:http server answering the same bytes from memory, in alternating one-second turns)',
    '',
    '| format | clients | body | exporter req/s | bare req/s | ratio (goal ≥ 0.8) | exporter p50 / p99 ms | bare p50 / p99 ms | p99 ratio (goal ≤ 1.25) | failures |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...large.scrapes.map(scrapeRow),
    '',
  );
  const ratios = large.scrapes.map((s) => s.exporter.requestsPerSecond / s.bare.requestsPerSecond);
  const worstP99 = Math.max(...large.scrapes.map(p99Ratio));
  lines.push(
    `Throughput goal (≥ 0.8 of the bare server, every format): ${mark(Math.min(...ratios) >= GOALS.scrapeRatio)} (worst ${fixed(Math.min(...ratios), 2)}). Latency goal (p99 ≤ 1.25× the bare server's, every format, 16 clients and 1): ${mark(worstP99 <= GOALS.p99Ratio)} (worst ${fixed(worstP99, 2)}×).`,
    '',
    '### 3. Ingest (CPU time in this process, bytes → rendered sample lines, vs bare `JSON.parse` of the same bytes)',
    '',
    '| body | size | series | JSON.parse ms | ingest ms | ratio | goal ≤ 2× |',
    '|---|---|---|---|---|---|---|',
    ingestRow(ingest.statsPayload),
    ingestRow(ingest.flowControl),
    ingestRow(ingest.urlGroups),
    ingestRow(ingest.whole),
    ingestRow(ingest.logWindow),
    '',
    '### 4. Ingest scaling (multiples of a small state: 100 keys, 5 URL groups, 2 databases)',
    '',
    '| scale | series | ingest ms (whole state) | ingest µs per series |',
    '|---|---|---|---|',
    ...scaling.map(
      (s) =>
        `| ${s.state.label} | ${s.series} | ${fixed(s.ingest.ingestMicros / 1000, 2)} | ${fixed(s.ingest.ingestMicros / s.series, 2)} |`,
    ),
    '',
    '### 5. Upstash cost',
    '',
    '| driver | sources | cycles | polls (skipped ticks) | Upstash requests | requests per poll | connections opened | pool size |',
    '|---|---|---|---|---|---|---|---|',
    `| exporter process, 1 s interval | ${cost.sources} | ${fixed(cost.exporter.cycles, 1)} | ${cost.exporter.polls} (${cost.exporter.skipped}) | ${cost.exporter.requests} | ${fixed(cost.exporter.requests / cost.exporter.polls, 2)} | ${cost.exporter.connectionsOpened} | ${cost.exporter.poolSize} |`,
    `| client in-process, back to back | ${cost.sources} | ${cost.client.cycles} | ${cost.client.cycles * cost.sources} (0) | ${cost.client.requests} | ${fixed(cost.client.requests / (cost.client.cycles * cost.sources), 2)} | ${cost.client.connectionsOpened} | ${cost.client.poolSize} |`,
    '',
  );
  lines.push(eventWindowSection(results.eventWindow));
  lines.push(renderFlood(results.flood));
  lines.push(renderAccount(results.account));
  return lines.join('\n');
}

/** Whether the polling exporter's footprint grew between its early and its last reading. */
function growthLine(runs: readonly MemoryRun[]): string {
  const polling = runs.find((run) => run.points.length > 2);
  const early = polling?.points.at(-2);
  const last = polling?.points.at(-1);
  if (early === undefined || last === undefined) return '';
  const growth = last.rssBytes - early.rssBytes;
  return `Growth from ${early.label} to ${last.label}: RSS ${growth >= 0 ? '+' : ''}${mb(growth)}, V8 heap total ${mb(last.heapTotalBytes - early.heapTotalBytes)}, external ${mb(last.externalBytes - early.externalBytes)} (goal: no growth over 100 cycles; the cycles run behind the whole benchmark, niced, and are cut at 150 s so that the benchmark stays under 4 minutes).`;
}

/** Issue 30's memory goal: what polling a window of log events adds to the exporter's RSS. */
function eventWindowSection(figure: EventWindowFigure): string {
  const growth = figure.rssAfterBytes - figure.rssBeforeBytes;
  const signed = (bytes: number): string =>
    Number.isFinite(bytes) ? `${bytes >= 0 ? '+' : ''}${mb(bytes)}` : 'n/a';
  return [
    `### The event window (exporter process polling \`qstash_logs\` only, as shipped: one poll of ${figure.events} log events in ${figure.pages} pages)`,
    '',
    '| events | pages | counted | RSS before | RSS after | growth | peak (VmHWM) over before | goal: growth < 5 MB |',
    '|---|---|---|---|---|---|---|---|',
    `| ${figure.events} | ${figure.pages} | ${figure.counted} | ${mb(figure.rssBeforeBytes)} | ${mb(figure.rssAfterBytes)} | ${signed(growth)} | ${signed(figure.peakGrowthBytes)} | ${mark(growth < GOALS.eventWindowGrowthBytes)} |`,
    '',
  ].join('\n');
}

/**
 * Which environment every exporter process of the run had: each figure of the report is under it, so
 * that a run as the image runs the exporter is never read as one as `node dist/main.js` runs it.
 */
function environmentLine(env: Readonly<Record<string, string>>, imageTuned: boolean): string {
  const pairs = Object.entries(env).map(([name, value]) => `\`${name}=${value}\``);
  const image = imageTuned
    ? 'the image adds `MALLOC_ARENA_MAX` and `GLIBC_TUNABLES`: Dockerfile'
    : 'and as the image runs it, which adds no allocator tuning: Dockerfile';
  return pairs.length === 0
    ? `Exporter environment: the bench's own, nothing added: as \`node dist/main.js\`, \`npm start\` and the bin run it (${image}).`
    : `Exporter environment: ${pairs.join(' ')} added to every exporter process of this run (\`BENCH_EXPORTER_ENV\`); every figure below is under it.`;
}
