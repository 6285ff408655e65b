import type { Results, ScrapeFigure } from './benchmarks.js';
import type { IngestFigure } from './ingest.js';
import { renderAccount } from './report-account.js';

const GOALS = { scrapeRatio: 0.8, p99Ms: 5, ingestRatio: 2, rssBytes: 120 * 1024 * 1024 } as const;

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;
const fixed = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mark = (ok: boolean): string => (ok ? 'met' : '**not met**');

function scrapeRow(figure: ScrapeFigure): string {
  const { exporter, bare } = figure;
  const ratio = exporter.requestsPerSecond / bare.requestsPerSecond;
  const failures = exporter.failures + bare.failures;
  return `| ${figure.label} | ${figure.connections} | ${kb(exporter.bytesPerResponse)} | ${fixed(exporter.requestsPerSecond, 0)} | ${fixed(bare.requestsPerSecond, 0)} | ${fixed(ratio, 2)} | ${fixed(exporter.p50Ms, 2)} / ${fixed(exporter.p99Ms, 2)} | ${fixed(bare.p50Ms, 2)} / ${fixed(bare.p99Ms, 2)} | ${failures} |`;
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
    `Large state: ${large.state.flowControlKeys} flow-control keys, ${large.state.urlGroups} URL groups (up to ${large.state.maxEndpoints} endpoints), ${large.state.databases.length} databases with ${large.state.pointsPerSeries} points per series: ${large.series} series, ${kb(large.textBytes)} of text (${kb(large.gzipBytes)} gzipped). First poll of every source done ${fixed(large.firstPollSeconds, 1)} s after the process started.`,
    '',
    '### 1. Scrape (exporter process vs a bare node:http server answering the same bytes from memory)',
    '',
    '| format | clients | body | exporter req/s | bare req/s | ratio (goal ≥ 0.8) | exporter p50 / p99 ms | bare p50 / p99 ms | failures |',
    '|---|---|---|---|---|---|---|---|---|',
    ...large.scrapes.map(scrapeRow),
    '',
  );
  const ratios = large.scrapes
    .filter((s) => s.connections > 1)
    .map((s) => s.exporter.requestsPerSecond / s.bare.requestsPerSecond);
  const worstP99 = Math.max(...large.scrapes.filter((s) => s.connections > 1).map((s) => s.exporter.p99Ms));
  lines.push(
    `Throughput goal (≥ 0.8 of the bare server, every format, 16 clients): ${mark(Math.min(...ratios) >= GOALS.scrapeRatio)} (worst ${fixed(Math.min(...ratios), 2)}). p99 goal (< 5 ms, 16 clients): ${mark(worstP99 < GOALS.p99Ms)} (worst ${fixed(worstP99, 2)} ms).`,
    '',
    '### 2. Ingest (CPU time in this process, bytes → rendered sample lines, vs bare `JSON.parse` of the same bytes)',
    '',
    '| body | size | series | JSON.parse ms | ingest ms | ratio | goal ≤ 2× |',
    '|---|---|---|---|---|---|---|',
    ingestRow(ingest.statsPayload),
    ingestRow(ingest.flowControl),
    ingestRow(ingest.urlGroups),
    ingestRow(ingest.whole),
    '',
    '### 3. Memory (exporter process holding the large state)',
    '',
    '| node flags | RSS after first poll | RSS after the scrape runs | peak RSS (VmHWM) | V8 heap used / total | of which young generation | external (buffers) | goal: RSS < 120 MB |',
    '|---|---|---|---|---|---|---|---|',
    ...large.memory.map(
      (m) =>
        `| ${m.nodeArgs} | ${mb(m.rssAfterLoadBytes)} | ${mb(m.rssAfterScrapesBytes)} | ${mb(m.peakRssBytes)} | ${mb(m.heapUsedBytes)} / ${mb(m.heapTotalBytes)} | ${mb(m.newSpaceBytes)} | ${mb(m.externalBytes)} | ${mark(m.rssAfterScrapesBytes < GOALS.rssBytes)} (peak: ${mark(m.peakRssBytes < GOALS.rssBytes)}) |`,
    ),
    '',
    '### 4. Scaling (multiples of a small state: 100 keys, 5 URL groups, 2 databases)',
    '',
    `| scale | series | exporter req/s (${scaling[0]?.scrape.connections ?? 0} clients, text) | bare req/s | ratio | exporter CPU-µs-equivalent per series per scrape | ingest ms (whole state) | ingest µs per series |`,
    '|---|---|---|---|---|---|---|---|',
    ...scaling.map((s) => {
      const rps = s.scrape.exporter.requestsPerSecond;
      return `| ${s.state.label} | ${s.series} | ${fixed(rps, 0)} | ${fixed(s.scrape.bare.requestsPerSecond, 0)} | ${fixed(rps / s.scrape.bare.requestsPerSecond, 2)} | ${fixed(1e6 / rps / s.series, 3)} | ${fixed(s.ingest.ingestMicros / 1000, 2)} | ${fixed(s.ingest.ingestMicros / s.series, 2)} |`;
    }),
    '',
    '### 5. Upstash cost',
    '',
    '| driver | sources | cycles | polls (skipped ticks) | Upstash requests | requests per poll | connections opened | pool size |',
    '|---|---|---|---|---|---|---|---|',
    `| exporter process, 1 s interval | ${cost.sources} | ${fixed(cost.exporter.cycles, 1)} | ${cost.exporter.polls} (${cost.exporter.skipped}) | ${cost.exporter.requests} | ${fixed(cost.exporter.requests / cost.exporter.polls, 2)} | ${cost.exporter.connectionsOpened} | ${cost.exporter.poolSize} |`,
    `| client in-process, back to back | ${cost.sources} | ${cost.client.cycles} | ${cost.client.cycles * cost.sources} (0) | ${cost.client.requests} | ${fixed(cost.client.requests / (cost.client.cycles * cost.sources), 2)} | ${cost.client.connectionsOpened} | ${cost.client.poolSize} |`,
    '',
  );
  lines.push(renderAccount(results.account));
  return lines.join('\n');
}
