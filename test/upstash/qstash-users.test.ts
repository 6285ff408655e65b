import { describe, expect, test } from 'vitest';
import { parseQstashUsers } from '../../src/upstash/qstash-users.js';
import { invalidAsync } from '../helpers/invalid.js';

const TOKEN = 'ZXhhbXBsZUB1cHN0YXNoLmNvbTpTRUNSRVQtdG9rZW4=';
const READ_ONLY = 'ZXhhbXBsZUB1cHN0YXNoLmNvbTpSRUFELU9OTFktdG9rZW4=';

// One entry as the Developer API documents QStashUser, credentials included.
const USER = {
  customer_id: 'ops@example.com',
  id: '99a4c327-31f0-490f-a594-043ade84085a',
  token: TOKEN,
  read_only_token: READ_ONLY,
  active: true,
  state: 'active',
  max_message_size: 1_048_576,
  max_requests_per_day: 1000,
  max_requests_per_day_hard: 1000,
  max_endpoints_per_topic: 100,
  max_requests_per_second: 100,
  max_dlq_size: 1_000_000,
  max_topics: 1,
  max_schedules: 10,
  max_global_parallelism: 10,
  max_queues: 10,
  prometheus_enabled: 'false',
  timeout: 900,
  type: 'free',
  region: 'eu-central-1',
  budget: 0,
  enterprise: { enabled: false },
};

describe('parseQstashUsers', () => {
  test('the documented body: ID, labels and limits, and no credential anywhere in the result', async () => {
    const parsed = await parseQstashUsers(JSON.parse(JSON.stringify([USER])));
    expect(parsed.entries).toEqual([
      {
        id: USER.id,
        region: 'eu-central-1',
        type: 'free',
        state: 'active',
        limits: {
          max_requests_per_day: 1000,
          max_requests_per_second: 100,
          max_dlq_size: 1_000_000,
          max_topics: 1,
          max_queues: 10,
          max_schedules: 10,
          max_global_parallelism: 10,
          max_message_size: 1_048_576,
          budget: 0,
          max_requests_per_day_hard: 1000,
          max_endpoints_per_topic: 100,
          timeout: 900,
        },
        features: { active: true, prometheus_enabled: false },
      },
    ]);
    expect(parsed.rejected).toEqual([]);
    const kept = JSON.stringify(parsed);
    expect(kept).not.toContain(TOKEN);
    expect(kept).not.toContain(READ_ONLY);
    expect(kept).not.toContain('ops@example.com');
  });

  test('a limit of the wrong type is skipped alone and reported; a missing one is just absent', async () => {
    const { entries, rejected } = await parseQstashUsers([
      { ...USER, max_queues: undefined, max_dlq_size: '1000000' },
    ]);
    const [instance] = entries;
    expect(instance!.limits.max_dlq_size).toBeUndefined();
    expect(instance!.limits.max_queues).toBeUndefined();
    expect(instance!.limits.max_topics).toBe(1);
    expect(rejected).toEqual(['max_dlq_size']);
  });

  test('a setting is a boolean or its text; anything else is skipped alone and reported', async () => {
    const { entries, rejected } = await parseQstashUsers([
      { ...USER, prod_pack_enabled: 'true', prometheus_enabled: true, active: 'yes' },
    ]);
    expect(entries[0]!.features).toEqual({ prod_pack_enabled: true, prometheus_enabled: true });
    expect(rejected).toEqual(['active']);
  });

  test('numbers beyond 2^53 ("no limit") are kept as the float they parse to', async () => {
    const [instance] = (
      await parseQstashUsers(JSON.parse(`[{"id":"a","max_requests_per_day":8024278031528736858}]`))
    ).entries;
    expect(instance!.limits.max_requests_per_day).toBe(Number('8024278031528736858'));
  });

  test.each([
    ['missing id', [{ ...USER, id: undefined }]],
    ['empty id', [{ ...USER, id: '' }]],
    ['repeated id', [USER, USER]],
    ['an object body', { users: [USER] }],
    ['null', null],
  ])('%s → invalid_response, whose message holds no credential', async (_, body) => {
    const error = await invalidAsync(() => parseQstashUsers(body, 'https://api.upstash.com/v2/qstash/users'));
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).not.toContain(READ_ONLY);
    expect(error.message).toContain('GET https://api.upstash.com/v2/qstash/users');
  });

  // Only the key field is all-or-nothing (tested for every listing in tolerance.test.ts).
  test('a region of the wrong type is left out alone (an empty label) and named', async () => {
    const { entries, rejected } = await parseQstashUsers([{ ...USER, region: 1 }]);
    expect(entries[0]!.region).toBe('');
    expect(rejected).toEqual(['region']);
  });

  test('a token in the place of the ID is not quoted by the error', async () => {
    const error = await invalidAsync(() => parseQstashUsers([{ ...USER, id: 12, state: { token: TOKEN } }]));
    expect(error.message).not.toContain(TOKEN);
  });
});

describe('an instance listed with its ID only', () => {
  test('has empty labels, no limits and no switches', async () => {
    expect((await parseQstashUsers([{ id: 'i' }])).entries).toStrictEqual([
      { id: 'i', region: '', type: '', state: '', limits: {}, features: {} },
    ]);
  });
});
