import { defineConfig } from 'vitest/config';
import { ciReporters } from './test/ci-reporters.js';

// The Helm chart checks (test/chart): need a real helm and kubernetes-models, which
// scripts/chart-test.sh installs outside node_modules and names in HELM and CHART_TOOLS. Not part of
// `npm test`; run by .ci/run through that script.
export default defineConfig({
  test: {
    reporters: ciReporters('chart'),
    include: ['test/chart/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
