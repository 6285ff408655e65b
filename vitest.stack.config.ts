import { defineConfig } from 'vitest/config';
import { ciReporters } from './test/ci-reporters.js';

// The Prometheus → Alertmanager chain test (test/stack): needs `npm run build` and Debian's prometheus
// and prometheus-alertmanager. Not part of `npm test`; run by scripts/stack-test.sh.
export default defineConfig({
  test: {
    reporters: ciReporters('stack'),
    include: ['test/stack/**/*.test.ts'],
    // One stack at a time: its tests run in order against the same processes.
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
