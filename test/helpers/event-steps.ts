import fc from 'fast-check';
import { TIME_CLASSES, type TimeClass } from './event-upstream.js';

// What the event sources' properties share of their generators (docs/architecture.md, Tests).

/** Runs of each property: `PROPERTY_RUNS` from the environment, else a number the suite affords. */
export const PROPERTY_RUNS = runs(process.env.PROPERTY_RUNS);

function runs(text: string | undefined): number {
  if (text === undefined || text === '') return 100;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`PROPERTY_RUNS must be a positive integer, not ${text}`);
  return n;
}

/** A time class, mostly plain milliseconds, each other unit and edge often enough. */
export const timeClass: fc.Arbitrary<TimeClass> = fc.oneof(
  { arbitrary: fc.constant('ms' as const), weight: 6 },
  { arbitrary: fc.constantFrom(...TIME_CLASSES), weight: 4 },
);
