import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../src/server/gzip-member.js';

describe('crc32Combine', () => {
  it('is the CRC-32 of two runs back to back, for empty, small, large and multi-byte runs', () => {
    const runs = ['', 'a', 'hello ', 'é€😀'.repeat(777), 'x'.repeat(100_003)].map((s) => Buffer.from(s));
    for (const a of runs) {
      for (const b of runs) {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }
    }
  });
});
