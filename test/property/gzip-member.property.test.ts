import fc from 'fast-check';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Of, deflateOpen, gzipMember, type Deflated } from '../../src/server/gzip-member.js';

// The stitching alone, without the scrape cache: any pieces, each of any chunks (empty ones too),
// deflated alone and stitched, are one gzip member whose content is every chunk back to back, and
// whose trailer (CRC-32 chained across the pieces, length) the decoder checks.

const chunk = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes));
const pieces = fc.array(fc.array(chunk, { maxLength: 5 }), { maxLength: 5 });

async function piece(chunks: readonly Buffer[]): Promise<Deflated> {
  const kept = chunks.filter((c) => c.length > 0);
  return {
    deflated: await Promise.all(kept.map(deflateOpen)),
    crc: crc32Of(kept),
    length: kept.reduce((sum, c) => sum + c.length, 0),
  };
}

describe('gzipMember', () => {
  it('decodes to the pieces back to back, whatever they are', async () => {
    await fc.assert(
      fc.asyncProperty(pieces, async (given) => {
        const member = gzipMember(await Promise.all(given.map(piece)));
        expect(gunzipSync(member).equals(Buffer.concat(given.flat()))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('is refused by the decoder when a piece claims a wrong CRC-32', async () => {
    const good = await piece([Buffer.from('upstash_up 1\n')]);
    expect(() => gunzipSync(gzipMember([{ ...good, crc: good.crc ^ 1 }]))).toThrow();
  });
});
