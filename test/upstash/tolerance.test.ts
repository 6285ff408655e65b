import { describe, expect, test } from 'vitest';
import { parseDatabases } from '../../src/upstash/databases.js';
import { parseFlowControl } from '../../src/upstash/flow-control.js';
import { parseIndexes } from '../../src/upstash/indexes.js';
import { parseQstashUsers } from '../../src/upstash/qstash-users.js';
import { parseQueues } from '../../src/upstash/queues.js';
import type { Listing } from '../../src/upstash/schema.js';
import { parseSchedules } from '../../src/upstash/schedules.js';
import { parseUrlGroups } from '../../src/upstash/url-groups.js';
import { invalidAsync } from '../helpers/invalid.js';

// One tolerance rule per kind of field, for every listing (docs/metrics.md, Redis database statistics): the
// key field is all-or-nothing; any other field of the wrong type is left out of its entry alone and named,
// the entry and the rest of the listing kept. Each listing: a valid entry, its key field, one optional text
// or flag and one optional number field (JSON text, so that 1e400 arrives as JSON.parse reads it).
interface ListingCase {
  readonly parse: (json: unknown) => Promise<Listing<object>>;
  readonly entry: Record<string, unknown>;
  readonly key: string;
  readonly other: string;
  readonly number: string;
}
const LISTINGS: Record<string, ListingCase> = {
  flow_control: {
    parse: parseFlowControl,
    entry: { flowControlKey: 'k', waitListSize: 1, isPaused: true, parallelismMax: 4 },
    key: 'flowControlKey',
    other: 'isPaused',
    number: 'parallelismMax',
  },
  url_groups: {
    parse: parseUrlGroups,
    entry: { name: 'g', createdAt: 1, updatedAt: 2, endpoints: [{ url: 'https://x' }] },
    key: 'name',
    other: 'endpoints',
    number: 'createdAt',
  },
  queues: {
    parse: parseQueues,
    entry: { name: 'q', lag: 3, paused: true, parallelism: 2 },
    key: 'name',
    other: 'paused',
    number: 'lag',
  },
  schedules: {
    parse: parseSchedules,
    entry: { scheduleId: 's', cron: '* * * * *', isPaused: false, nextScheduleTime: 5 },
    key: 'scheduleId',
    other: 'cron',
    number: 'nextScheduleTime',
  },
  databases: {
    parse: parseDatabases,
    entry: { database_id: 'd', database_name: 'n', region: 'eu', db_max_clients: 10 },
    key: 'database_id',
    other: 'region',
    number: 'db_max_clients',
  },
  qstash_users: {
    parse: parseQstashUsers,
    entry: { id: 'i', region: 'eu', max_queues: 10 },
    key: 'id',
    other: 'region',
    number: 'max_queues',
  },
  // vector_indexes and search_indexes: one parser for both products.
  indexes: {
    parse: parseIndexes,
    entry: { id: 'i', name: 'n', region: 'eu', max_daily_queries: -1 },
    key: 'id',
    other: 'region',
    number: 'max_daily_queries',
  },
};

const body = (entries: readonly Record<string, unknown>[], raw: Record<string, string> = {}): unknown =>
  JSON.parse(
    `[${entries
      .map((entry) => {
        const fields = Object.entries(entry).map(
          ([k, v]) => `${JSON.stringify(k)}:${raw[k] ?? JSON.stringify(v)}`,
        );
        return `{${fields.join(',')}}`;
      })
      .join(',')}]`,
  );

describe.each(Object.entries(LISTINGS))('%s', (_, listing) => {
  const second = { ...listing.entry, [listing.key]: 'second' };

  test('an optional field of the wrong type is left out alone and named; the listing stands', async () => {
    const good = await listing.parse(body([listing.entry, second]));
    expect(good.rejected).toEqual([]);
    const bad = await listing.parse(body([{ ...listing.entry, [listing.other]: { wrong: 1 } }, second]));
    expect(bad.rejected).toEqual([listing.other]);
    expect(bad.entries).toHaveLength(2);
    expect(bad.entries[1]).toEqual(good.entries[1]);
    expect(bad.entries[0]).not.toEqual(good.entries[0]);
  });

  test('a number field beyond the double range (1e400, Infinity to JSON.parse) is a rejected field', async () => {
    for (const huge of ['1e400', '-1e400']) {
      const parsed = await listing.parse(body([listing.entry], { [listing.number]: huge }));
      expect(parsed.rejected).toEqual([listing.number]);
      expect(JSON.stringify(parsed.entries)).not.toMatch(/Infinity|null/);
    }
  });

  test('a null optional field is absent, not rejected', async () => {
    const parsed = await listing.parse(body([{ ...listing.entry, [listing.number]: null }]));
    expect(parsed.rejected).toEqual([]);
  });

  test('a key field of the wrong type fails the whole listing', async () => {
    const error = await invalidAsync(() =>
      listing.parse(body([{ ...listing.entry, [listing.key]: 7 }, second])),
    );
    expect(error.message).toContain(listing.key);
  });
});

// Where the number field is one of the listing's limits: a limit not sent is no key of `limits`, so
// that what reads them (a series per limit) meets only those Upstash gave.
describe.each(['databases', 'qstash_users', 'indexes'])('%s limits', (name) => {
  test('hold the limits sent and no other key', async () => {
    const listing = LISTINGS[name];
    if (listing === undefined) throw new Error(`no listing ${name}`);
    const without = { ...listing.entry, [listing.key]: 'second', [listing.number]: null };
    const parsed = await listing.parse(body([listing.entry, without]));
    const keys = parsed.entries.map((entry) => Object.keys((entry as { limits: object }).limits));
    expect(keys).toEqual([[listing.number], []]);
  });
});
