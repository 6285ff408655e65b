import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  crc32Combine,
  deflateChunk,
  gzipMember,
  ReusedDeflater,
  type DeflatedChunk,
} from '../../src/server/gzip-member.js';

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

describe('ReusedDeflater', () => {
  it('deflates chunk after chunk on one stream, each alone: the bytes a fresh stream makes', async () => {
    const chunks = ['', 'a 1\n', 'é€😀 '.repeat(3_000), 'x'.repeat(200_000), 'b 2\n'].map((s) =>
      Buffer.from(s),
    );
    const deflater = new ReusedDeflater();
    const reused: DeflatedChunk[] = [];
    for (const chunk of chunks) reused.push(await deflater.deflate(chunk));
    const fresh = await Promise.all(chunks.map(async (chunk) => deflateChunk(chunk)));
    reused.forEach((one, at) => {
      expect(one.deflated.equals(fresh[at]?.deflated ?? Buffer.alloc(1))).toBe(true);
      expect([one.crc, one.length]).toEqual([fresh[at]?.crc, fresh[at]?.length]);
    });
    // In any order, the chunks stitch into one member of their text.
    const order = [4, 2, 0, 3, 1];
    const member = gzipMember(order.map((at) => reused[at]!));
    expect(gunzipSync(Buffer.concat(member)).equals(Buffer.concat(order.map((at) => chunks[at]!)))).toBe(
      true,
    );
  });
});
