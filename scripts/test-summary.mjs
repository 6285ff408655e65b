// Adds up the JSON reports that the vitest runs of .ci/run wrote into .tmp/ and prints one closing
// line, `Tests: N passed, N failed, N skipped` (skipped: skipped, todo and pending alike, so that a
// test that quietly stopped running shows); exits 1 when a run failed or no test ran at all.
import { readdirSync, readFileSync } from 'node:fs';

const files = readdirSync('.tmp').filter((name) => /^vitest-.*\.json$/.test(name));
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  const report = JSON.parse(readFileSync(`.tmp/${file}`, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  const notRun = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  skipped += notRun;
  process.stdout.write(
    `${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${notRun} skipped\n`,
  );
}
process.stdout.write(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
