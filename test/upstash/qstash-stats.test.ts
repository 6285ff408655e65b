import { describe, expect, test } from 'vitest';
import { parseQstashStats } from '../../src/upstash/qstash-stats.js';
import { invalid } from '../helpers/invalid.js';

const NOW = Date.UTC(2025, 9, 3, 12, 0, 0);

// As the Developer API documents QStashStats: daily arrays padded with the rest of the month.
const DOCUMENTED = {
  days: ['Wednesday', 'Thursday', 'Friday', 'Saturday'],
  daily_requests: [
    { x: '2025-10-01 00:00:00 +0000 UTC', y: 900, workflow_message: 0, workflow_run: 0 },
    { x: '2025-10-03 00:00:00.5 +0000 UTC', y: 420, workflow_message: 3, workflow_run: 1 },
    { x: '2025-10-02 00:00:00 +0000 UTC', y: 1000, workflow_message: 0, workflow_run: 0 },
    { x: '2025-10-04 00:00:00 +0000 UTC', y: 0, workflow_message: 0, workflow_run: 0 },
  ],
  daily_billings: [
    { x: '2025-10-02 00:00:00 +0000 UTC', y: 0.5 },
    { x: '2025-10-03 00:00:00 +0000 UTC', y: null },
  ],
  daily_bandwidths: [{ x: '2025-10-03 00:00:00 +0000 UTC', y: 52_428_800 }],
  daily_used: [
    { x: '2025-10-03 11:58:00 +0000 UTC', y: 4 },
    { x: '2025-10-03 11:59:00 +0000 UTC', y: 6 },
    { x: '2025-10-03 12:30:00 +0000 UTC', y: 100 },
  ],
  daily_qstash_messages: [
    { id: 'delivered', data_points: [{ x: '2025-10-03 11:59:00 +0000 UTC', y: 3 }] },
    {
      id: 'failed',
      data_points: [
        { x: '2025-10-03 11:58:00 +0000 UTC', y: 0 },
        { x: '2025-10-03 11:59:00 +0000 UTC', y: null },
      ],
    },
  ],
  daily_workflow_messages: [],
  dlq_message_count: 17,
  total_monthly_billing: 5.806,
};

describe('parseQstashStats', () => {
  test('the latest point by time, future padding skipped, null points skipped, plain numbers as they are', () => {
    expect(parseQstashStats(DOCUMENTED, 'stats', NOW)).toEqual({
      values: {
        daily_requests: 420,
        daily_billings: 0.5,
        daily_bandwidths: 52_428_800,
        dlq_message_count: 17,
        total_monthly_billing: 5.806,
        workflow_run: 1,
        workflow_message: 3,
        daily_used: 10,
      },
      states: {
        daily_qstash_messages: new Map([
          ['delivered', 3],
          ['failed', 0],
        ]),
        daily_workflow_messages: new Map(),
      },
      rejected: [],
    });
  });

  test.each([
    ['a state list that is not an array', { daily_qstash_messages: {} }, 'daily_qstash_messages'],
    [
      'a repeated state',
      {
        daily_workflow_messages: [
          { id: 'failed', data_points: [] },
          { id: 'failed', data_points: [] },
        ],
      },
      'daily_workflow_messages',
    ],
    ['an entry without id', { daily_qstash_messages: [{ data_points: [] }] }, 'daily_qstash_messages'],
    ['an entry that is null', { daily_qstash_messages: [null] }, 'daily_qstash_messages'],
    [
      'an id that is empty',
      { daily_qstash_messages: [{ id: '', data_points: [] }] },
      'daily_qstash_messages',
    ],
    [
      'a malformed point of a state',
      { daily_qstash_messages: [{ id: 'retry', data_points: [{ x: 'now', y: 1 }] }] },
      'daily_qstash_messages',
    ],
    ['a sum series of the wrong type', { daily_used: 'lots' }, 'daily_used'],
  ])('%s: that field alone is skipped and reported', (_, bad, field) => {
    const parsed = parseQstashStats({ ...DOCUMENTED, ...bad }, 'stats', NOW);
    expect(parsed.rejected).toEqual([field]);
    expect({ ...parsed.values, ...parsed.states }).not.toHaveProperty(field);
    expect(parsed.values.daily_requests).toBe(420);
  });

  test('a workflow figure of the wrong type on the latest point is skipped alone', () => {
    const body = {
      daily_requests: [{ x: '2025-10-03 00:00:00 +0000 UTC', y: 5, workflow_run: '2', workflow_message: 4 }],
    };
    const parsed = parseQstashStats(body, 'stats', NOW);
    expect(parsed.rejected).toEqual(['daily_requests.workflow_run']);
    expect(parsed.values).toEqual({ daily_requests: 5, workflow_message: 4 });
  });

  test('a state without points has no series: no zero is made up', () => {
    const body = { daily_qstash_messages: [{ id: 'error', data_points: null }, { id: 'retry' }] };
    expect(parseQstashStats(body, 'stats', NOW).states.daily_qstash_messages?.size).toBe(0);
  });

  test('a point up to five minutes ahead of our clock still counts', () => {
    const body = { daily_requests: [{ x: '2025-10-03 12:04:59 +0000 UTC', y: 7 }] };
    expect(parseQstashStats(body, 'stats', NOW).values.daily_requests).toBe(7);
    const later = { daily_requests: [{ x: '2025-10-03 12:05:01 +0000 UTC', y: 7 }] };
    expect(parseQstashStats(later, 'stats', NOW).values.daily_requests).toBeUndefined();
  });

  test.each([
    ['a number where a series is expected', { daily_requests: 5 }, 'daily_requests'],
    ['a point without x', { daily_billings: [{ y: 1 }] }, 'daily_billings'],
    ['an unparsable x', { daily_bandwidths: [{ x: 'yesterday', y: 1 }] }, 'daily_bandwidths'],
    ['a string y', { daily_requests: [{ x: '2025-10-01 00:00:00 +0000 UTC', y: '4' }] }, 'daily_requests'],
    ['a string where a number is expected', { dlq_message_count: '17' }, 'dlq_message_count'],
  ])('%s: the field is skipped alone and reported', (_, bad, field) => {
    const parsed = parseQstashStats({ ...DOCUMENTED, ...bad }, 'stats', NOW);
    expect(parsed.rejected).toEqual([field]);
    expect(parsed.values).not.toHaveProperty(field);
    expect(Object.keys(parsed.values)).toHaveLength(field === 'daily_requests' ? 5 : 7);
  });

  test('missing and null fields produce nothing and are not rejected', () => {
    expect(parseQstashStats({ daily_requests: null }, 'stats', NOW)).toEqual({
      values: {},
      states: {},
      rejected: [],
    });
  });

  test.each([
    ['an array', []],
    ['null', null],
    ['a string', 'stats'],
  ])('%s is not a stats body', (_, body) => {
    invalid(() => parseQstashStats(body));
  });
});
