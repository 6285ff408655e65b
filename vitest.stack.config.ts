import { defineConfig } from 'vitest/config';

// The Prometheus → Alertmanager chain test (test/stack): needs `npm run build` and Debian's prometheus
// and prometheus-alertmanager. Not part of `npm test`; run by scripts/stack-test.sh.
export default defineConfig({
  test: {
    include: ['test/stack/**/*.test.ts'],
    // One stack at a time: its tests run in order against the same processes.
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
