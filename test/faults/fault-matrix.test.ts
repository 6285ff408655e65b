import { describe, test } from 'vitest';
import { FAULTS, runFaultCase } from '../helpers/fault-cases.js';

// The fault matrix (fault-cases.ts says what each case asserts). How fast /metrics
// answers during the faults is timing, asserted in the slow suite (test/load/scrape-during-faults).

describe.concurrent('fault matrix: every source × every fault', () => {
  // The cases share the cores in small groups, so the last waits for the others: a long limit, which
  // only a hung case reaches.
  test.each(FAULTS)('$name → $reason', { timeout: 600_000 }, async (fault) => {
    await runFaultCase(fault);
  });
});
