import { describe, expect, it } from 'vitest';
import { fnv1a32, ownsUnit } from '../../src/sources/shards.js';

describe('fnv1a32', () => {
  it('matches the published FNV-1a 32-bit test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes, not UTF-16 code units', () => {
    // "é" is two bytes in UTF-8 (c3 a9): hashing them one by one from the offset basis.
    let expected = 0x811c9dc5;
    for (const byte of [0xc3, 0xa9]) expected = Math.imul(expected ^ byte, 0x01000193) >>> 0;
    expect(fnv1a32('é')).toBe(expected);
  });
});

describe('ownsUnit', () => {
  it('gives every unit to exactly one shard, and all to an unsharded process', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `redis_stats/main/db-${i}`);
    for (const id of ids) {
      const owners = [0, 1, 2].filter((shard) => ownsUnit(id, { shard, total: 3 }));
      expect(owners).toHaveLength(1);
      expect(ownsUnit(id, { shard: 0, total: 1 })).toBe(true);
    }
    // Spread roughly evenly: each of three shards gets a fair share of 300 units.
    for (const shard of [0, 1, 2]) {
      const owned = ids.filter((id) => ownsUnit(id, { shard, total: 3 })).length;
      expect(owned).toBeGreaterThan(60);
      expect(owned).toBeLessThan(140);
    }
  });

  it('uses the documented key: flow_control/eu/ is hashed with its trailing slash', () => {
    const total = 7;
    expect(ownsUnit('flow_control/eu/', { shard: fnv1a32('flow_control/eu/') % total, total })).toBe(true);
  });
});
