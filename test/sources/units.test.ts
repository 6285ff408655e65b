import { describe, expect, it } from 'vitest';
import { EventStore } from '../../src/sources/event-store.js';
import type { Listed } from '../../src/sources/source.js';
import { entryGroups, type SourceEntry, type UnitDeps } from '../../src/sources/units.js';
import { UpstashClient } from '../../src/upstash/client.js';

const client = new UpstashClient({ timeoutMs: 1000, retries: 0, concurrency: 1, userAgent: 'test' });
const entry = (databases: readonly string[] | 'discovered'): SourceEntry => ({
  key: 'management/main',
  account: {
    name: 'main',
    baseUrl: 'http://127.0.0.1:9',
    credentials: { api: 'management', email: 'ops@example.com', apiKey: { reveal: () => 'k' } },
  },
  sources: ['redis_stats'],
  ...(databases !== 'discovered' && { ids: { database: databases } }),
});
const deps = (known = new Map<string, Listed>(), shard = { shard: 0, total: 1 }): UnitDeps => ({
  client,
  limits: {
    maxFlowControlKeys: 10,
    maxUrlGroups: 10,
    maxCommandsPerDatabase: 10,
    maxQueues: 10,
    maxSchedules: 10,
    maxIndexes: 10,
    maxDlqPages: 10,
    maxTeams: 50,
    maxEventPages: 10,
    maxEventSeries: 10,
    eventSettle: 0,
  },
  shard,
  known,
  events: new EventStore(),
  onDiscovered: () => undefined,
  onUnpollable: () => undefined,
});

/** Every unit of an entry, whatever its group. */
const entryUnits = (e: SourceEntry, d: UnitDeps) => entryGroups(e, d).flatMap((group) => group.units);

describe('entryUnits', () => {
  it('one unit per listed database, with its health labels and family', () => {
    const units = entryUnits(entry(['db-1', 'db-2']), deps());
    expect(units.map((u) => u.id)).toEqual(['redis_stats/main/db-1', 'redis_stats/main/db-2']);
    expect(units[0]?.labels).toEqual({
      source: 'redis_stats',
      account: 'main',
      database_id: 'db-1',
      qstash_id: '',
      index_id: '',
    });
    expect(units[0]?.family).toBe('redis_stats/main');
  });

  it('discovered databases: none before the first listing, the last listed ones after (a reload keeps them)', () => {
    const known = new Map<string, Listed>();
    expect(entryUnits(entry('discovered'), deps(known))).toEqual([]);
    known.set('management/main/database', {
      ids: ['db-a', 'db-b'],
      names: new Map([['db-a', 'cache-prod']]),
    });
    const units = entryUnits(entry('discovered'), deps(known));
    expect(units.map((u) => u.id)).toEqual(['redis_stats/main/db-a', 'redis_stats/main/db-b']);
    // The listing's names come back with the units, for the landing page; an ID without one has none.
    expect(units.map((u) => u.name)).toEqual(['cache-prod', undefined]);
  });

  it('a shard keeps only the units it owns, and together the shards keep them all once', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `db-${i}`);
    const owned = [0, 1, 2].flatMap((shard) =>
      entryUnits(entry(ids), deps(new Map(), { shard, total: 3 })).map((u) => u.id),
    );
    expect(owned.sort()).toEqual(ids.map((id) => `redis_stats/main/${id}`).sort());
  });
});

describe('entryGroups', () => {
  it('a source on a schedule of its own runs in a group of its own; the entry’s group comes first, also empty', () => {
    const backups = { ...entry(['db-1']), sources: ['redis_backups', 'redis_stats'] as const };
    expect(entryGroups(backups, deps()).map((g) => ({ ...g, units: g.units.map((u) => u.id) }))).toEqual([
      { key: 'management/main', schedule: undefined, units: ['redis_stats/main/db-1'] },
      { key: 'management/main/backups', schedule: 'backups', units: ['redis_backups/main/db-1'] },
    ]);
    expect(entryGroups({ ...backups, sources: ['redis_backups'] }, deps()).map((g) => g.key)).toEqual([
      'management/main',
      'management/main/backups',
    ]);
    // Discovered databases: the backups group waits empty for the listing's news.
    expect(
      entryGroups({ ...entry('discovered'), sources: ['databases', 'redis_backups'] }, deps()).map((g) => [
        g.key,
        g.units.map((u) => u.id),
      ]),
    ).toEqual([
      ['management/main', ['databases/main/']],
      ['management/main/backups', []],
    ]);
  });
});
