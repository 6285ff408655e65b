import { describe, expect, test } from 'vitest';
import { parseQueues } from '../../src/upstash/queues.js';
import { invalid } from '../helpers/invalid.js';

// As QStash documents `GET /v2/queues`: an array of Queue objects.
const DOCUMENTED = `[
  {"name": "orders", "createdAt": 1700000000000, "updatedAt": 1700000500000, "parallelism": 2, "paused": false, "lag": 130},
  {"name": "emails", "createdAt": 1700000000000, "updatedAt": 1700000000000, "parallelism": 1, "paused": true, "lag": 42},
  {"name": "idle", "createdAt": 1700000000000, "updatedAt": 1700000000000, "parallelism": 1}
]`;

describe('parseQueues', () => {
  test('the documented body; a missing lag is 0 and a missing paused false (Upstash omits zeros)', () => {
    expect(parseQueues(JSON.parse(DOCUMENTED))).toEqual([
      { name: 'orders', lag: 130, parallelism: 2, paused: false },
      { name: 'emails', lag: 42, parallelism: 1, paused: true },
      { name: 'idle', lag: 0, parallelism: 1, paused: false },
    ]);
  });

  test('an empty list, and a queue without parallelism', () => {
    expect(parseQueues([])).toEqual([]);
    expect(parseQueues([{ name: 'q' }])).toEqual([{ name: 'q', lag: 0, paused: false }]);
  });

  test.each([
    ['missing name', [{ lag: 1 }], 'name'],
    ['empty name', [{ name: '', lag: 1 }], 'name'],
    ['repeated name', [{ name: 'q' }, { name: 'q', lag: 2 }], 'name'],
    ['lag a string', [{ name: 'q', lag: '5' }], 'lag'],
    ['paused a number', [{ name: 'q', paused: 1 }], 'paused'],
  ])('%s → invalid_response naming the field', (_, body, field) => {
    const error = invalid(() => parseQueues(body, 'https://qstash.example.com/v2/queues'));
    expect(error.message).toContain(field);
    expect(error.message).toContain('GET https://qstash.example.com/v2/queues');
  });

  test.each([
    ['null', null],
    ['an object', { queues: [] }],
  ])('%s is not a queue list', (_, body) => {
    invalid(() => parseQueues(body));
  });
});
