import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { ciReporters } from './test/ci-reporters.js';

// `npm test`: fast tests that need no binary beyond node. The real-Prometheus chain (test/stack), the
// soak and load runs (test/soak, test/load) and the Helm chart checks (test/chart) have their own
// configs, run by .ci/run.
export default defineConfig({
  test: {
    reporters: ciReporters('unit'),
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/stack/**', 'test/soak/**', 'test/load/**', 'test/chart/**'],
    // Limits only a hung test reaches: several times what the slowest test takes on a busy machine.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // e2e tests start processes and ports; two cores, so keep the pool small.
    maxWorkers: 2,
    // The poll worker thread runs our TypeScript sources too (test/helpers/ts-hooks.mjs).
    execArgv: ['--import', fileURLToPath(new URL('./test/helpers/register-ts.mjs', import.meta.url))],
  },
});
