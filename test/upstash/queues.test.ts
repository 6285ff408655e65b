import { describe, expect, test } from 'vitest';
import { parseQueues } from '../../src/upstash/queues.js';
import { invalidAsync } from '../helpers/invalid.js';

// As QStash documents `GET /v2/queues`: an array of Queue objects.
const DOCUMENTED = `[
  {"name": "orders", "createdAt": 1700000000000, "updatedAt": 1700000500000, "parallelism": 2, "paused": false, "lag": 130},
  {"name": "emails", "createdAt": 1700000000000, "updatedAt": 1700000000000, "parallelism": 1, "paused": true, "lag": 42},
  {"name": "idle", "createdAt": 1700000000000, "updatedAt": 1700000000000, "parallelism": 1}
]`;

describe('parseQueues', () => {
  test('the documented body; a missing lag is 0 and a missing paused false (Upstash omits zeros)', async () => {
    expect((await parseQueues(JSON.parse(DOCUMENTED))).entries).toEqual([
      { name: 'orders', lag: 130, parallelism: 2, paused: false },
      { name: 'emails', lag: 42, parallelism: 1, paused: true },
      { name: 'idle', lag: 0, parallelism: 1, paused: false },
    ]);
  });

  test('an empty list, and a queue without parallelism', async () => {
    expect(await parseQueues([])).toEqual({ entries: [], rejected: [] });
    expect(await parseQueues([{ name: 'q' }])).toEqual({
      entries: [{ name: 'q', lag: 0, paused: false }],
      rejected: [],
    });
  });

  // Only the key field is all-or-nothing (tested for every listing in tolerance.test.ts).
  test.each([
    ['lag a string', [{ name: 'q', lag: '5', paused: true }], 'lag', { name: 'q', paused: true }],
    ['paused a number', [{ name: 'q', paused: 1, lag: 3 }], 'paused', { name: 'q', lag: 3 }],
  ])('%s: the field is left out alone and named, the queue kept', async (_, body, field, queue) => {
    expect(await parseQueues(body)).toEqual({ entries: [queue], rejected: [field] });
  });

  test.each([
    ['missing name', [{ lag: 1 }], 'name'],
    ['empty name', [{ name: '', lag: 1 }], 'name'],
    ['repeated name', [{ name: 'q' }, { name: 'q', lag: 2 }], 'name'],
  ])('%s → invalid_response naming the field', async (_, body, field) => {
    const error = await invalidAsync(() => parseQueues(body, 'https://qstash.example.com/v2/queues'));
    expect(error.message).toContain(field);
    expect(error.message).toContain('GET https://qstash.example.com/v2/queues');
  });

  test.each([
    ['null', null],
    ['an object', { queues: [] }],
  ])('%s is not a queue list', async (_, body) => {
    await invalidAsync(() => parseQueues(body));
  });
});
