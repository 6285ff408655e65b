// Adds up the JSON reports that the vitest runs of .ci/run wrote into .tmp/ and prints one closing
// line, `Tests: N passed, N failed`; exits 1 when a run failed or no test ran at all.
import { readdirSync, readFileSync } from 'node:fs';

const files = readdirSync('.tmp').filter((name) => /^vitest-.*\.json$/.test(name));
let passed = 0;
let failed = 0;
for (const file of files) {
  const report = JSON.parse(readFileSync(`.tmp/${file}`, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  process.stdout.write(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed\n`);
}
process.stdout.write(`Tests: ${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
