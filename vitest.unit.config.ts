import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// `npm run test:unit`: the inner loop (docs/architecture.md, Development). The tests of one module at a
// time, on literal bodies, the simulator or the fake clock, with no build: left out are the ones that
// run dist/ (test/e2e, test/bench, the --help of test/docs), start the whole exporter with its poll
// worker (test/faults and its harness's users in test/server, test/polling and test/sources), and the
// configs of their own (stack, soak, load, chart). `npm test` runs them all.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [
      ...configDefaults.exclude,
      'test/stack/**',
      'test/soak/**',
      'test/load/**',
      'test/chart/**',
      'test/e2e/**',
      'test/bench/**',
      'test/docs/**',
      'test/faults/**',
      'test/worker/**',
      'test/server/connection-guard.test.ts',
      'test/server/lifecycle.test.ts',
      'test/server/methods.test.ts',
      'test/server/telemetry-path.test.ts',
      'test/server/web-security.test.ts',
      'test/sources/event-sources.test.ts',
    ],
    testTimeout: 30_000,
    maxWorkers: 2,
    // The worker threads a test starts (bcrypt's) run our TypeScript sources (test/helpers/ts-hooks.mjs).
    execArgv: ['--import', fileURLToPath(new URL('./test/helpers/register-ts.mjs', import.meta.url))],
  },
});
