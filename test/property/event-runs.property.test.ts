import fc from 'fast-check';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { PROPERTY_RUNS } from '../helpers/event-steps.js';
import { playRuns, runStep } from '../helpers/run-history.js';

// `workflow_runs` (docs/metrics.md, Delivery errors and workflow runs) against a generator of
// upstream answers (test/helpers/run-history.ts), the invariants checked after every step and at the
// end (test/helpers/event-model.ts); then the counterexamples it found, as they were shrunk.

describe('workflow runs against generated upstream answers', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('I1–I3, I6: each run once in its final form, no run ends a scan, unread said once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(runStep(), { maxLength: 30 }), (steps) => playRuns(steps)),
      { numRuns: PROPERTY_RUNS },
    );
  });

  test('I4: a failure function’s state is never folded, whatever the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(runStep(fc.constant('ms')), { maxLength: 30 }),
        fc.integer({ min: 1, max: 3 }),
        (steps, series) => playRuns(steps, { series }),
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

// What the generator found on the rule as it stood before its invariants, shrunk (each figure in
// the note that came with them); the steps as literals so that each stays a case of its own.
const POLL = { kind: 'poll', page: 1, failAt: undefined, publish: false } as const;

describe('counterexamples the generator shrank, kept', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('a run listed again 1 ms later is the same run', async () => {
    await playRuns([
      { kind: 'late', ms: 1, failure: 'none', workflow: 0 },
      POLL,
      { kind: 'advance', ms: 1 },
      { kind: 'restamp', pick: 0, ms: 1 },
    ]);
  });

  test('a failure function read in progress, then failed, is counted as failed', async () => {
    await playRuns([
      { kind: 'late', ms: 1, failure: 'CALLBACK_INPROGRESS', workflow: 0 },
      POLL,
      { kind: 'callback', pick: 0, final: 'CALLBACK_FAIL' },
    ]);
  });

  test('a second capped poll with W unchanged says only the time since the first', async () => {
    await playRuns([
      {
        kind: 'finish',
        state: 'RUN_SUCCESS',
        count: 2,
        time: 'ms',
        aheadMs: 60_000,
        durationMs: 0,
        failure: 'none',
        workflow: 0,
        copies: 1,
        during: false,
      },
      { kind: 'advance', ms: 1 },
      POLL,
      POLL,
    ]);
  });

  test('a failure function’s state is not folded into other by the cap', async () => {
    await playRuns(
      [
        { kind: 'late', ms: 1, failure: 'none', workflow: 0 },
        { kind: 'late', ms: 1, failure: 'none', workflow: 1 },
      ],
      { series: 1 },
    );
  });
});
