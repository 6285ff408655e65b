import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run mutate` (docs/testing.md): the tests Stryker may run against a mutant of the modules it
// mutates. Only the module tests and property suites of those folders: the tests that run dist/ or
// start the poll worker cannot see a mutant (it lives in this process's copy of src/), and would only
// slow every mutant down. MUTATE_TESTS (a comma-separated list of globs) narrows them further, to
// triage one module against its own tests in minutes rather than an hour.
const narrowed = process.env.MUTATE_TESTS?.split(',').filter((glob) => glob !== '');

export default defineConfig({
  test: {
    include: narrowed ?? [
      'test/upstash/**/*.test.ts',
      'test/metrics/**/*.test.ts',
      'test/sources/event-*.test.ts',
      'test/property/parsers.property.test.ts',
      'test/property/stats-series.property.test.ts',
      'test/property/exposition.property.test.ts',
      'test/property/event-rule.property.test.ts',
      'test/property/entry-readers.property.test.ts',
    ],
    exclude: ['test/sources/event-sources.test.ts'],
    testTimeout: 60_000,
    maxWorkers: 1,
    execArgv: ['--import', fileURLToPath(new URL('./test/helpers/register-ts.mjs', import.meta.url))],
  },
});
