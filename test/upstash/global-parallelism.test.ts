import { describe, expect, test } from 'vitest';
import { parseGlobalParallelism } from '../../src/upstash/global-parallelism.js';
import { invalid } from '../helpers/invalid.js';

describe('parseGlobalParallelism', () => {
  test('the documented body', () => {
    expect(parseGlobalParallelism(JSON.parse('{"parallelismMax": 100, "parallelismCount": 37}'))).toEqual({
      max: 100,
      inUse: 37,
    });
  });

  test('a missing count means 0 running (Upstash omits zeros); a missing max stays absent', () => {
    expect(parseGlobalParallelism({ parallelismMax: 10 })).toEqual({ max: 10, inUse: 0 });
    expect(parseGlobalParallelism({})).toEqual({ inUse: 0 });
  });

  test.each([
    ['an array', [], 'top level'],
    ['null', null, 'top level'],
    ['a string count', { parallelismMax: 1, parallelismCount: '3' }, 'parallelismCount'],
  ])('%s → invalid_response', (_, body, where) => {
    expect(invalid(() => parseGlobalParallelism(body)).message).toContain(where);
  });
});
