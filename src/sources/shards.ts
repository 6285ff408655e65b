import type { Sharding } from '../vocabulary.js';

/** FNV-1a 32-bit of `text`'s UTF-8 bytes: the shard hash (docs/sharding.md, How units are shared out). */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    // hash * 16777619 (the FNV prime) in 32 bits, without losing precision in a double.
    hash = (hash + (hash << 1) + (hash << 4) + (hash << 7) + (hash << 8) + (hash << 24)) >>> 0;
  }
  return hash;
}

/** Whether this shard polls and exports the unit `id` (`<source>/<account>/<id>`). */
export function ownsUnit(id: string, shard: Sharding): boolean {
  return shard.total <= 1 || fnv1a32(id) % shard.total === shard.shard;
}
