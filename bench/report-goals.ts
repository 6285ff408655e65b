import type { AccountFigures } from './account.js';
import type { Results } from './benchmarks.js';
import { fixed, mark, mb } from './format.js';
import { median, p99Ratio, ratio } from './report-account.js';

/**
 * The serving path's goals (BENCHMARKS.md, "The serving path without allocator tuning"): memory held
 * without glibc tuning, the latency and throughput of a bare node:http server in the default
 * environment kept.
 */
const GOALS = {
  accountRssBytes: 150 * 2 ** 20,
  accountPeakBytes: 200 * 2 ** 20,
  largeRssBytes: 120 * 2 ** 20,
  serialP99Ratio: 1.5,
  manyRatio: 0.8,
} as const;

/** One environment's figures for each goal. */
interface Figures {
  readonly accountRss: number;
  readonly accountPeak: number;
  readonly largeRss: number;
  /** Worst one-client p99 ratio of text and OpenMetrics, and each format's. */
  readonly serial: number;
  readonly serialText: string;
  /** Worst 16-client median throughput ratio, and each format's. */
  readonly many: number;
  readonly manyText: string;
}

function figures(large: Results['large'], account: AccountFigures): Figures {
  const afterScrapes = large.memory[0]?.points.find((point) => point.label === 'after the scrape runs');
  const serial = account.serial.filter((s) => s.label !== 'gzip');
  const many = account.rounds.map((r) => ({ label: r.label, median: median(r.rounds.map(ratio)) }));
  return {
    accountRss: account.memoryAfterScrapes.rssBytes,
    accountPeak: Math.max(account.memoryAfterScrapes.peakRssBytes, account.maxSampledRssBytes),
    largeRss: afterScrapes?.rssBytes ?? NaN,
    serial: Math.max(...serial.map(p99Ratio)),
    serialText: account.serial.map((s) => `${s.label} ${fixed(p99Ratio(s), 2)}×`).join(', '),
    many: Math.min(...many.map((m) => m.median)),
    manyText: many.map((m) => `${m.label} ${fixed(m.median, 2)}`).join(', '),
  };
}

/** Both environments side by side, each against the same bare server in the default environment. */
export function renderGoals(results: Results): string {
  const plain = figures(results.large, results.account);
  const tuned = figures(results.tuned.large, results.tuned.account);
  const tunedEnv = Object.entries(results.tuned.env)
    .map(([name, value]) => `\`${name}=${value}\``)
    .join(' ');
  const row = (goal: string, target: string, cell: (f: Figures) => string, met: (f: Figures) => boolean) =>
    `| ${goal} | ${cell(plain)} ${mark(met(plain))} | ${cell(tuned)} ${mark(met(tuned))} | ${target} |`;
  return [
    '### The serving path without allocator tuning',
    '',
    `The exporter as \`node dist/main.js\` runs it (the bench's environment, nothing added) and under ${tunedEnv} (${results.tuned.shipped ? "the image's environment, Dockerfile" : 'the tuning the image no longer ships'}), each against the same bare node:http server in the bench's own environment: the account phase (1,000 databases, scraped while polls land) and the large state's scrape phase, run once for each.`,
    '',
    `| goal | as \`node dist/main.js\` runs${results.tuned.shipped ? '' : ' (and the image)'} | ${results.tuned.shipped ? "the image's environment" : 'allocator tuning (not shipped)'} | target |`,
    '|---|---|---|---|',
    row(
      'account state, RSS after the scrapes',
      '< 150 MB',
      (f) => mb(f.accountRss),
      (f) => f.accountRss < GOALS.accountRssBytes,
    ),
    row(
      'account state, peak (VmHWM through the phase, 16 clients)',
      '< 200 MB',
      (f) => mb(f.accountPeak),
      (f) => f.accountPeak < GOALS.accountPeakBytes,
    ),
    row(
      'large state, RSS after the scrape runs',
      '< 120 MB',
      (f) => mb(f.largeRss),
      (f) => f.largeRss < GOALS.largeRssBytes,
    ),
    row(
      'account state, one client while polls land: p99 / bare (text, OpenMetrics; gzip reported)',
      `≤ ${GOALS.serialP99Ratio}×`,
      (f) => f.serialText,
      (f) => f.serial <= GOALS.serialP99Ratio,
    ),
    row(
      'account state, 16 clients while polls land: throughput / bare (median of the rounds)',
      `≥ ${GOALS.manyRatio}`,
      (f) => f.manyText,
      (f) => f.many >= GOALS.manyRatio,
    ),
    '',
  ].join('\n');
}
