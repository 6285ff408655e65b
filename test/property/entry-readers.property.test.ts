import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { auditEvent, readAuditEvent, toAuditEvent } from '../../src/upstash/audit-logs.js';
import { InvalidResponseError } from '../../src/upstash/errors.js';
import { QSTASH_DELIVERIES, QSTASH_LOGS } from '../../src/upstash/qstash-logs.js';
import { parseListing, type ListingShape } from '../../src/upstash/schema.js';
import { WORKFLOW_RUNS } from '../../src/upstash/workflow-runs.js';

// The event pages are read by hand (schema.ts, EntryReader) and their zod schemas stay the rule of record:
// for any list of entries, a listing read with its reader gives what the schema alone gives: the same
// entries, the same fields rejected in the same order, or the same invalid_response with the same
// message (which names the entry and the field, never a value).

const SECRET = 'tok-SECRET-7c';

/** Values of every JSON type, and the edges of the number rules (integers, 2^53, -0, 1e400 → Infinity). */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constantFrom('', 'ERROR', 'RUN_FAILED', 'API_KEY - ci key'),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.constantFrom(0, -0, 1.5, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 1e21, Infinity, -Infinity, NaN),
  fc.double(),
  fc.boolean(),
  fc.constant([SECRET]),
  fc.constant({ token: SECRET }),
  fc.constantFrom({ state: 'CALLBACK_FAIL' }, { state: 5 }, { state: null }),
);

const SECRET_URL = `https://api.example.com/hook?token=${SECRET}`;

/** URLs, well and badly formed, with secrets where real ones carry them. */
const url = fc.oneof(
  fc.constantFrom(
    SECRET_URL,
    `https://user:${SECRET}@api.example.com:8443/x#${SECRET}`,
    'http://127.0.0.1:80/a',
    'HTTPS://API.Example.COM:443',
    'https://münchen.example/x',
    'ftp://x.example.com/',
    'not a url',
    'https://',
    'https://[::1',
    'https://a.com:99999/',
  ),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
);

/** The schema of every event list read by hand. */
const SCHEMAS: readonly z.ZodObject<Record<string, z.ZodType>>[] = [
  QSTASH_LOGS.documented.entry,
  QSTASH_DELIVERIES.documented.entry,
  WORKFLOW_RUNS.documented.entry,
  auditEvent,
];

/** A value the field's schema accepts: of the types an entry's fields have, filtered by the schema. */
const validFor = (field: z.ZodType) =>
  fc
    .oneof(fc.integer({ min: 0 }), fc.double(), fc.string())
    .filter((value) => field.safeParse(value).success);

/** Whether a field's schema cuts a URL (to its origin or path): given URLs with secrets, as upstream's are. */
function cutsUrls(field: z.ZodType): boolean {
  const parsed = field.safeParse(SECRET_URL);
  return parsed.success && typeof parsed.data === 'string' && parsed.data !== SECRET_URL;
}

/**
 * An entry with the fields its schema names, derived from the schema (each maybe missing, of any
 * type; its identity, the fields the schema requires, mostly right, so that most lists get past their
 * first entry; URLs where the schema cuts them) and fields it must drop: secrets, and the fields of
 * the other lists' schemas (a reader must not read what its schema does not name).
 */
function entryOf(schema: z.ZodObject<Record<string, z.ZodType>>) {
  const fields = Object.entries(schema.shape);
  const foreign = SCHEMAS.flatMap((other) => Object.keys(other.shape)).filter(
    (name) => !(name in schema.shape),
  );
  const identity = fields.filter(([, field]) => !field.safeParse(undefined).success).map(([name]) => name);
  const model: Record<string, fc.Arbitrary<unknown>> = {
    ...Object.fromEntries(
      fields.map(([name, field]) => [
        name,
        identity.includes(name)
          ? fc.oneof({ weight: 19, arbitrary: validFor(field) }, { weight: 1, arbitrary: anyValue })
          : cutsUrls(field)
            ? fc.oneof(url, anyValue)
            : anyValue,
      ]),
    ),
    ...Object.fromEntries(foreign.map((name) => [name, anyValue])),
    header: fc.constant({ Authorization: [SECRET] }),
    ip: fc.constant('203.0.113.9'),
  };
  return fc.oneof(
    { weight: 19, arbitrary: fc.record(model, { requiredKeys: identity }) },
    { weight: 1, arbitrary: anyValue },
  );
}

const LISTS = {
  qstash_logs: { shape: QSTASH_LOGS.documented, entry: entryOf(QSTASH_LOGS.documented.entry) },
  qstash_deliveries: {
    shape: QSTASH_DELIVERIES.documented,
    entry: entryOf(QSTASH_DELIVERIES.documented.entry),
  },
  workflow_runs: { shape: WORKFLOW_RUNS.documented, entry: entryOf(WORKFLOW_RUNS.documented.entry) },
  audit_logs: {
    shape: { entry: auditEvent, toEntry: toAuditEvent, read: readAuditEvent },
    entry: entryOf(auditEvent),
  },
} as const;

/** A listing's result, or its failure's message. */
async function outcome<T>(shape: ListingShape<z.ZodType<object>, T>, list: unknown[]) {
  try {
    const { entries, rejected } = await parseListing(list, 'logs', shape);
    return { entries, rejected };
  } catch (error) {
    return { failure: (error as Error).message };
  }
}

describe('hand-written entry readers', () => {
  for (const [name, { shape, entry }] of Object.entries(LISTS)) {
    test(`${name}: the reader answers what the schema answers, entry by entry and in its words`, async () => {
      const withReader = { ...shape } as unknown as ListingShape<z.ZodType<object>, unknown>;
      const schemaOnly = { ...withReader, read: undefined };
      await fc.assert(
        fc.asyncProperty(fc.array(entry, { maxLength: 12 }), async (list) => {
          const fast = await outcome(withReader, list);
          expect(fast).toEqual(await outcome(schemaOnly, list));
          expect(JSON.stringify(fast)).not.toContain(SECRET);
        }),
        { numRuns: 400 },
      );
    });
  }

  test('a bad identity fails the page naming the entry and the field, as the schema does', async () => {
    const list = [
      { time: 1, messageId: 'a' },
      { time: 2, messageId: 'b' },
      { time: 3, messageId: 'c' },
      { time: 4, messageId: { token: SECRET } },
    ];
    const failure = await parseListing(list, 'logs', {
      ...QSTASH_LOGS.documented,
      list: () => ({ list, at: 'logs' }),
    }).catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect((failure as Error).message).toContain(
      'wrong shape at logs[3].messageId: Invalid input: expected string, received object',
    );
    expect((failure as Error).message).not.toContain(SECRET);
  });

  test('a field of the wrong type is absent and named; missing, null and empty names are absent', () => {
    const rejected = new Set<string>();
    const event = QSTASH_LOGS.documented.read!(
      { time: 5, messageId: 'm', state: '', queueName: null, responseStatus: '500', url: 7 },
      rejected,
    );
    expect(event).toEqual({ time: 5, messageId: 'm' });
    expect([...rejected]).toEqual(['url', 'responseStatus']);
  });
});
