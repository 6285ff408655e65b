import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseFlowControl, parseFlowControlWithSchema } from '../../src/upstash/flow-control.js';

// parseFlowControl takes a hand-written path for well-formed bodies; the zod schema is the
// definition. Whatever the body, both must agree: the same keys, or the same error.

function outcome(parse: () => unknown): { ok: unknown } | { error: string } {
  try {
    return { ok: parse() };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

function expectSameAsSchema(json: unknown): void {
  expect(outcome(() => parseFlowControl(json, 'u'))).toEqual(
    outcome(() => parseFlowControlWithSchema(json, 'u')),
  );
}

// Values near the real shape reach every branch of the fast path; plain JSON covers the rest.
const anything = fc.jsonValue({ maxDepth: 2 });
const size = fc.oneof(
  fc.integer(),
  fc.double(), // NaN, ±Infinity and -0 included
  fc.constantFrom(0, -0, 1e308, Infinity, -Infinity, NaN),
  fc.string(),
  fc.constant(null),
  fc.boolean(),
);
const key = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.integer(), fc.constant(null));
const entry = fc.oneof(
  { weight: 6, arbitrary: fc.record({ flowControlKey: fc.string(), waitListSize: fc.integer({ min: 0 }) }) },
  {
    weight: 3,
    arbitrary: fc.record(
      { flowControlKey: key, waitListSize: size, parallelismMax: fc.integer(), extra: anything },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: anything },
);
const entries = fc.array(entry, { maxLength: 8 });
const body = fc.oneof(
  entries,
  fc.record({ flowControls: entries }),
  fc.record({ flowControls: entries, other: anything }),
  fc.record({ flowControls: anything }),
  anything,
);

describe('parseFlowControl fast path', () => {
  test('agrees with the schema on generated bodies', () => {
    fc.assert(fc.property(body, expectSameAsSchema), { numRuns: 3000 });
  });

  test('agrees with the schema on bodies as JSON.parse hands them over', () => {
    for (const text of [
      '{"flowControls": []}',
      '[]',
      '{"flowControls": [{"flowControlKey": "k", "waitListSize": 1e999}]}',
      '[{"flowControlKey": "k", "waitListSize": -0}]',
      '[{"flowControlKey": "k", "waitListSize": 3, "waitListSize2": "x"}]',
      '{"flowControls": [{"flowControlKey": "k", "waitListSize": "3"}]}',
      '{"flowControls": [null]}',
      '{"flowControls": [[]]}',
      '{"flowControls": {}}',
      '{"flowcontrols": []}',
      '"flowControls"',
      'null',
    ]) {
      expectSameAsSchema(JSON.parse(text));
    }
  });

  test('agrees on inputs JSON cannot produce', () => {
    const holey: unknown[] = [];
    holey[1] = { flowControlKey: 'k', waitListSize: 1 };
    const inherited = Object.create({ flowControlKey: 'k', waitListSize: 1 }) as object;
    for (const json of [holey, [inherited], { flowControls: [new Date(0)] }, new Map(), undefined]) {
      expectSameAsSchema(json);
    }
  });
});
