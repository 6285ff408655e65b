// @ts-check
// Mutation testing of the modules where a silent wrong answer costs most (docs/testing.md): Stryker
// changes one operator, condition or literal at a time and runs the tests that cover it; a mutant no
// test notices is a claim the suite does not check. Slow, so not in CI: run `npm run mutate`, or one
// module with `npm run mutate -- --mutate src/upstash/utf8.ts`.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: [
    'src/upstash/utf8.ts',
    'src/upstash/pager.ts',
    // The response parsers and the schema, tolerance and series rules they share.
    'src/upstash/databases.ts',
    'src/upstash/flow-control.ts',
    'src/upstash/global-parallelism.ts',
    'src/upstash/index-stats.ts',
    'src/upstash/indexes.ts',
    'src/upstash/qstash-stats.ts',
    'src/upstash/qstash-users.ts',
    'src/upstash/queues.ts',
    'src/upstash/redis-backups.ts',
    'src/upstash/redis-stats.ts',
    'src/upstash/schedules.ts',
    'src/upstash/url-groups.ts',
    'src/upstash/schema.ts',
    'src/upstash/tolerance.ts',
    'src/upstash/stats-series.ts',
    // The event rule and the decisions it keeps each in one place.
    'src/sources/event-rule*.ts',
    'src/sources/event-{identity,state,tally,time,unread}.ts',
    'src/metrics/exposition.ts',
    'src/metrics/unit-bytes.ts',
  ],
  testRunner: 'vitest',
  // Each mutant runs only the tests that reached its code in the first run (vitest's "related" files,
  // then coverage per test).
  vitest: { configFile: 'vitest.mutate.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // A mutant of a module-level constant runs before any test and so is covered by all of them: it
  // would cost most of the run. They are listed, not run (docs/testing.md, Mutation testing).
  ignoreStatic: true,
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.build.json',
  // Two cores shared: one mutant at a time.
  concurrency: 1,
  timeoutMS: 60_000,
  ignorePatterns: ['dist', 'coverage', '.tmp', 'reports', 'bench', 'charts', 'BENCHMARKS.md'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
