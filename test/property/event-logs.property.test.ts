import fc from 'fast-check';
import { afterEach, beforeEach, describe, test, vi } from 'vitest';
import { PROPERTY_RUNS } from '../helpers/event-steps.js';
import { logStep, playLogs } from '../helpers/log-history.js';
import { playRatio, ratioStep } from '../helpers/ratio-history.js';

// The QStash log's sources (docs/metrics.md, Event counters) against a generator of upstream answers
// (test/helpers/log-history.ts), the invariants checked after every step and at the end
// (test/helpers/event-model.ts); then the counterexamples it found, as they were shrunk.

describe('the QStash log sources against generated upstream answers', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('I1–I3, I6: each plausible event once, no event ends a scan, unread said once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(logStep(), { maxLength: 30 }), (steps) => playLogs(steps)),
      { numRuns: PROPERTY_RUNS },
    );
  });

  test('I4: one cap for the errors and the deliveries of a destination', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(ratioStep, { maxLength: 30 }),
        fc.integer({ min: 1, max: 3 }),
        (steps, series) => playRatio(steps, series),
      ),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

// What the generator found on the rule as it stood before its invariants, shrunk (each figure in
// the note that came with them); the steps as literals so that each stays a case of its own.
const EVENT = { count: 1, aheadMs: 60_000, copies: 1, during: false } as const;

describe('counterexamples the generator shrank, kept', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('an event dated in seconds is said rejected and counts nothing', async () => {
    await playLogs([{ kind: 'arrive', state: 'ERROR', time: 'seconds', ...EVENT }]);
  });

  test('an event dated before 2015, read first, does not end the scan', async () => {
    await playLogs([
      { kind: 'late', state: 'ERROR', ms: 1 },
      { kind: 'arrive', state: 'ERROR', time: 'past', ...EVENT },
    ]);
  });

  test('a negative time in the same millisecond as a real event does not hide it', async () => {
    await playLogs([
      { kind: 'arrive', state: 'FAILED', time: 'ms', ...EVENT },
      { kind: 'arrive', state: 'FAILED', time: 'negative', ...EVENT },
    ]);
  });

  test('an event a minute ahead does not move W past the clock', async () => {
    await playLogs([
      { kind: 'arrive', state: 'ERROR', time: 'ahead', ...EVENT },
      { kind: 'poll', source: 'logs', page: 1, failAt: undefined, publish: false },
    ]);
  });

  test('capped polls over refused future times say each unread second once', async () => {
    await playLogs([
      { kind: 'arrive', state: 'ERROR', time: 'micros', ...EVENT, count: 2 },
      { kind: 'advance', ms: 1 },
      { kind: 'poll', source: 'logs', page: 1, failAt: undefined, publish: false },
      { kind: 'poll', source: 'logs', page: 1, failAt: undefined, publish: false },
    ]);
  });

  test('a time that is not a number fails no poll', async () => {
    await playLogs([{ kind: 'arrive', state: 'ERROR', time: 'text', ...EVENT }]);
  });

  test('a destination with errors and deliveries is named in both or in neither', async () => {
    await playRatio(
      [
        { kind: 'arrive', state: 'ERROR', destination: 0, code: 0, count: 1 },
        { kind: 'arrive', state: 'DELIVERED', destination: 1, code: 0, count: 1 },
      ],
      1,
    );
  });

  // Found in CI on the rule with its invariants: a destination refused by a full budget was named by
  // the other family once a reload raised the cap (its deliveries stayed under `other`).
  test('a destination refused before a reload raises the cap stays folded in both families', async () => {
    await playRatio(
      [
        { kind: 'arrive', state: 'DELIVERED', destination: 1, code: 0, count: 1 },
        { kind: 'arrive', state: 'ERROR', destination: 1, code: 0, count: 1 },
        { kind: 'arrive', state: 'DELIVERED', destination: 0, code: 0, count: 1 },
        { kind: 'poll', source: 'deliveries', publish: false },
        { kind: 'reload', series: 2 },
      ],
      1,
    );
  });
});
