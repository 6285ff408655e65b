import { fixed, mark, mb } from './format.js';
import type { FloodFigures } from './flood.js';

/** Issue 27, part 4: a flood of pipelined requests must not starve a fresh scrape. */
export function renderFlood(flood: FloodFigures): string {
  const { plan } = flood;
  const answered = flood.windows.filter((w) => w.answered).length;
  const windows = flood.windows.map(
    (w) =>
      `| ${w.fromSeconds}–${w.fromSeconds + plan.windowSeconds} s | ${w.answered ? 'yes' : '**no**'} | ${w.worstMs} ms |`,
  );
  return [
    `### 6. Flood (${plan.connections} connections × ${plan.pipelined} pipelined \`GET /metrics\` never read, ${plan.seconds} s, against the large state's exporter; a scrape on a fresh connection every ${fixed(plan.scrapeEveryMs / 1000, 0)} s, given up after ${fixed(plan.timeoutMs / 1000, 0)} s)`,
    '',
    `| window | a scrape started in it answered within ${fixed(plan.answeredWithinMs / 1000, 0)} s | slowest scrape started in it |`,
    '|---|---|---|',
    ...windows,
    '',
    `Every window answered in time (goal): ${mark(answered === flood.windows.length)} (${answered} of ${flood.windows.length}; slowest scrape ${flood.worstMs} ms, ${flood.scrapes.filter((s) => s.status !== 200).length} of ${flood.scrapes.length} unanswered). RSS before the flood ${mb(flood.rssBeforeBytes)}, most sampled during it ${mb(flood.peakRssBytes)}, ${plan.settleSeconds} s after the attackers left ${mb(flood.rssAfterBytes)}; attack connections still open at its end: ${flood.attackersHeld}. Body: ${fixed(flood.bodyBytes / 1024 / 1024)} MB of text.`,
    '',
  ].join('\n');
}
