import { setImmediate } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { parseDatabases } from '../../src/upstash/databases.js';
import { describeIssues, parseEntriesInSlices } from '../../src/upstash/schema.js';
import { invalidAsync } from '../helpers/invalid.js';

// How a body that fails its schema is described (docs/architecture.md, the response parsers): where,
// and what was expected, never a value; and a long list validated in slices, all of it, in order.

const failure = (schema: z.ZodType, value: unknown): z.ZodError => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('the value passed its schema');
  return parsed.error;
};

describe('describeIssues', () => {
  const pair = z.object({ a: z.string(), b: z.number() });

  test('names the path of the first issue, in the list it was given, and how many more there are', () => {
    expect(describeIssues(failure(pair, { a: 1, b: 'x' }))).toBe(
      'wrong shape at a: Invalid input: expected string, received number and 1 more',
    );
    expect(describeIssues(failure(pair, { a: 1, b: 2 }), 'list[3]')).toBe(
      'wrong shape at list[3].a: Invalid input: expected string, received number',
    );
    expect(describeIssues(failure(z.string(), 1))).toBe(
      'wrong shape at top level: Invalid input: expected string, received number',
    );
    expect(describeIssues(new z.ZodError([]))).toBe('wrong shape');
  });

  test('follows a union into the branch that got deepest, the first of equals', () => {
    const entries = z.array(z.object({ id: z.string() }));
    const body = z.union([z.object({ items: entries }), entries]);
    expect(describeIssues(failure(body, [{ id: 1 }]))).toBe(
      'wrong shape at [0].id: Invalid input: expected string, received number',
    );
    expect(describeIssues(failure(body, { items: [{ id: 1 }] }))).toBe(
      'wrong shape at items[0].id: Invalid input: expected string, received number',
    );
    expect(describeIssues(failure(z.union([z.string(), z.number()]), true))).toBe(
      'wrong shape at top level: Invalid input: expected string, received boolean',
    );
  });

  test("a bare array's bad entry is named by its index", async () => {
    const listing = [{ database_id: 'a', database_name: 'a' }, { database_id: 7 }];
    const error = await invalidAsync(() => parseDatabases(listing, 'databases'));
    expect(error.message).toContain('wrong shape at [1].database_id: ');
  });
});

describe('parseEntriesInSlices', () => {
  const entry = z.object({ n: z.number() });
  const fail = (problem: string): Error => new Error(problem);
  const list = (length: number): { n: unknown }[] => Array.from({ length }, (_, n) => ({ n }));

  test('validates every entry of a list longer than a slice, in order, giving the event loop turns', async () => {
    let turns = 0;
    const counting = (async () => {
      while (turns >= 0) {
        await setImmediate();
        turns++;
      }
    })();
    const parsed = await parseEntriesInSlices(list(25_001), entry, 'items', fail);
    const seen = turns;
    turns = -Infinity;
    await counting;
    expect(parsed).toHaveLength(25_001);
    expect(parsed.every((value, at) => value.n === at)).toBe(true);
    expect(seen).toBeGreaterThanOrEqual(2);
  });

  test('names a bad entry past the first slice by its index in the whole list', async () => {
    const bad = list(25_001);
    bad[20_005] = { n: 'x' };
    await expect(parseEntriesInSlices(bad, entry, 'items', fail)).rejects.toThrow(
      /^wrong shape at items\[20005\]\.n: /,
    );
  });
});
