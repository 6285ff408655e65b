import { promisify } from 'node:util';
import { constants, crc32, deflateRaw as deflateRawCallback } from 'node:zlib';
import { crc32Combine } from '../metrics/crc32-combine.js';

// One gzip member stitched from pieces deflated on their own, as pure functions (which chunks are
// deflated when, and which are kept, is the scrape cache's policy: chunk-deflater.ts). Every chunk is
// raw-deflated alone, ending in a sync flush, which leaves the stream byte-aligned and open, so that
// the pieces can follow each other inside one member; an empty final block, the CRC-32 (chained
// across pieces with crc32Combine, never read again) and the length close it. One member, not
// concatenated members, so every decoder takes it, curl's included.

const deflateRaw = promisify(deflateRawCallback);

// A deflate block with BFINAL set, fixed Huffman codes and nothing in it: ends the stream.
const FINAL_EMPTY_BLOCK = Buffer.from([0x03, 0x00]);
// ID1 ID2, CM = deflate, no flags, no mtime, no extra flags, OS = unknown (as zlib writes it).
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/** A run of bytes and what the member needs of it: its deflated chunks, CRC-32 and length. */
export interface Deflated {
  readonly deflated: readonly Buffer[];
  readonly crc: number;
  readonly length: number;
}

/** The gzip member of the pieces, back to back: one buffer (one write per scrape, not a thousand). */
export function gzipMember(pieces: readonly Deflated[]): Buffer {
  let crc = 0;
  let length = 0;
  for (const piece of pieces) {
    crc = crc32Combine(crc, piece.crc, piece.length);
    length += piece.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  return Buffer.concat([
    GZIP_HEADER,
    ...pieces.flatMap((piece) => piece.deflated),
    FINAL_EMPTY_BLOCK,
    trailer,
  ]);
}

/** CRC-32 of `chunks`, back to back. */
export function crc32Of(chunks: readonly Buffer[]): number {
  let crc = 0;
  // Node's crc32 answers 0 for an empty buffer backed by no memory (`Buffer.from('')`), whatever the
  // starting value; the CRC of nothing more is the starting value.
  for (const chunk of chunks) if (chunk.length > 0) crc = crc32(chunk, crc);
  return crc;
}

/** A chunk raw-deflated alone, ending in a sync flush: a piece that another can follow in one member. */
export async function deflateOpen(chunk: Buffer): Promise<Buffer> {
  return deflateRaw(chunk, { finishFlush: constants.Z_SYNC_FLUSH });
}
