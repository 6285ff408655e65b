import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { ciReporters } from './test/ci-reporters.js';

// The slow proofs of issue 4, run by .ci/run but not by `npm test`: the soak (a compressed day of
// polling, SOAK_SECONDS long, 150 by default) and the load on /metrics. `--expose-gc` lets the soak
// measure the heap after a full collection rather than whatever garbage happens to be around; the
// poll worker thread runs our TypeScript sources as in `npm test` (test/helpers/ts-hooks.mjs).
export default defineConfig({
  test: {
    reporters: ciReporters('slow'),
    include: ['test/soak/**/*.test.ts', 'test/load/**/*.test.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    execArgv: [
      '--expose-gc',
      '--import',
      fileURLToPath(new URL('./test/helpers/register-ts.mjs', import.meta.url)),
    ],
    testTimeout: 230_000,
    hookTimeout: 60_000,
  },
});
