import { describe, expect, test } from 'vitest';
import { rejectField, StatsBody } from '../../src/upstash/stats-series.js';

// The stats body's reading of one field (docs/metrics.md, Redis database statistics): a value of the
// wrong type is a field rejected alone; a fault of the reader itself is no such thing.

describe('StatsBody.field', () => {
  test('a value its reader rejects is named; a fault of the reader is thrown, not named', () => {
    const body = new StatsBody<'a' | 'b'>({ a: 1, b: 2 }, 'stats', 0);
    expect(body.field('a', (): number => rejectField())).toBeUndefined();
    expect(body.rejected).toEqual(['a']);
    expect(() =>
      body.field('b', () => {
        throw new TypeError('a bug of ours');
      }),
    ).toThrow(TypeError);
    expect(body.rejected).toEqual(['a']);
  });
});
