import fc from 'fast-check';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deflateChunk, gzipMember } from '../../src/server/gzip-member.js';

// The stitching alone, without the metrics endpoint: any chunks (empty ones too), each deflated alone and
// stitched, are one gzip member whose content is every chunk back to back, and whose trailer (CRC-32
// chained across the chunks, length) the decoder checks.

const chunk = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes));
const chunks = fc.array(chunk, { maxLength: 25 });

describe('gzipMember', () => {
  it('decodes to the chunks back to back, whatever they are', async () => {
    await fc.assert(
      fc.asyncProperty(chunks, async (given) => {
        const member = gzipMember(await Promise.all(given.map(deflateChunk)));
        expect(gunzipSync(Buffer.concat(member)).equals(Buffer.concat(given))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('carries each chunk CRC-32 and length, and is refused by the decoder when a chunk claims a wrong CRC-32', async () => {
    const bytes = Buffer.from('upstash_up 1\n');
    const good = await deflateChunk(bytes);
    expect([good.crc, good.length]).toEqual([crc32(bytes), bytes.length]);
    expect(() => gunzipSync(Buffer.concat(gzipMember([{ ...good, crc: good.crc ^ 1 }])))).toThrow();
  });

  it('writes the deflated chunks as they are, never copied into one buffer', async () => {
    const deflated = await Promise.all([Buffer.from('a 1\n'), Buffer.from('b 2\n')].map(deflateChunk));
    const member = gzipMember(deflated);
    expect(member.filter((piece) => deflated.some((chunk) => chunk.deflated === piece))).toHaveLength(2);
  });
});
