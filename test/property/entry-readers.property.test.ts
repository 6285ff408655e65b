import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { auditEvent, readAuditEvent, toAuditEvent } from '../../src/upstash/audit-logs.js';
import { InvalidResponseError } from '../../src/upstash/errors.js';
import { QSTASH_LOGS } from '../../src/upstash/qstash-logs.js';
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
);

/** URLs, well and badly formed, with secrets where real ones carry them. */
const url = fc.oneof(
  fc.constantFrom(
    `https://api.example.com/hook?token=${SECRET}`,
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

/**
 * An entry with the fields a reader names (each maybe missing, of any type; its identity mostly
 * right, so that most lists get past their first entry) and a field it must drop.
 */
function entryOf(identity: readonly string[], fields: Record<string, fc.Arbitrary<unknown>>) {
  const model: Record<string, fc.Arbitrary<unknown>> = {
    ...fields,
    header: fc.constant({ Authorization: [SECRET] }),
  };
  return fc.oneof(
    { weight: 19, arbitrary: fc.record(model, { requiredKeys: [...identity] }) },
    { weight: 1, arbitrary: anyValue },
  );
}

const withUrl = (field: string) => ({ [field]: fc.oneof(url, anyValue) });

const LISTS = {
  qstash_logs: {
    shape: QSTASH_LOGS.documented,
    entry: entryOf(['time', 'messageId'], {
      time: fc.oneof({ weight: 19, arbitrary: fc.integer({ min: 0 }) }, { weight: 1, arbitrary: anyValue }),
      messageId: fc.oneof({ weight: 19, arbitrary: fc.string() }, { weight: 1, arbitrary: anyValue }),
      state: anyValue,
      ...withUrl('url'),
      topicName: anyValue,
      queueName: anyValue,
      scheduleId: anyValue,
      responseStatus: anyValue,
    }),
  },
  workflow_runs: {
    shape: WORKFLOW_RUNS.documented,
    entry: entryOf(['workflowRunId', 'workflowRunCreatedAt'], {
      workflowRunId: fc.oneof({ weight: 19, arbitrary: fc.string() }, { weight: 1, arbitrary: anyValue }),
      workflowRunCreatedAt: fc.oneof(
        { weight: 19, arbitrary: fc.double() },
        { weight: 1, arbitrary: anyValue },
      ),
      workflowRunCompletedAt: anyValue,
      workflowState: anyValue,
      ...withUrl('workflowUrl'),
    }),
  },
  audit_logs: {
    shape: { entry: auditEvent, toEntry: toAuditEvent, read: readAuditEvent },
    entry: entryOf(['log_id', 'timestamp'], {
      log_id: fc.oneof({ weight: 19, arbitrary: fc.string() }, { weight: 1, arbitrary: anyValue }),
      timestamp: fc.oneof({ weight: 19, arbitrary: fc.integer() }, { weight: 1, arbitrary: anyValue }),
      action_string: anyValue,
      source: anyValue,
      ip: fc.constant('203.0.113.9'),
    }),
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
      { time: SECRET, messageId: 'd' },
    ];
    const failure = await parseListing(list, 'logs', {
      ...QSTASH_LOGS.documented,
      list: () => ({ list, at: 'logs' }),
    }).catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(InvalidResponseError);
    expect((failure as Error).message).toContain(
      'wrong shape at logs[3].time: Invalid input: expected number, received string',
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
