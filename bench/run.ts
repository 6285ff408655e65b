import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FULL_PLAN, QUICK_PLAN, runBenchmarks } from './benchmarks.js';
import { EXPORTER_MAIN } from './exporter-process.js';
import { renderReport } from './report.js';

// `npm run bench` (full, writes BENCHMARKS.md) or `npm run bench -- --quick` (tiny, prints only).
const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, write: { type: 'boolean' } },
});
const quick = values.quick || process.env.BENCH_QUICK === '1';
const write = values.write ?? !quick;

const started = performance.now();
const results = await runBenchmarks(quick ? QUICK_PLAN : FULL_PLAN, (line) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`),
);
const report = renderReport(results);
console.log(report);

if (write) {
  const file = join(EXPORTER_MAIN, '..', '..', 'BENCHMARKS.md');
  const begin = '<!-- bench:begin (written by `npm run bench`) -->';
  const end = '<!-- bench:end -->';
  const block = `${begin}\n${report}\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : `# Benchmarks\n\n${begin}\n${end}\n`;
  const from = current.indexOf(begin);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? `${current.slice(0, from)}${block}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
  console.error(`wrote ${file}`);
}
