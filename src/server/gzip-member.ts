import { promisify } from 'node:util';
import { constants, crc32, deflateRaw as deflateRawCallback } from 'node:zlib';
import { crc32Combine } from './crc32-combine.js';

// One gzip member stitched from chunks deflated on their own, as pure functions (which chunks are
// deflated when, and which are kept, is chunk-deflater.ts). Each chunk is raw-deflated alone, ending in
// a sync flush, which leaves the stream byte-aligned and open, so that the chunks can follow each other
// inside one member; an empty final block, the CRC-32 (chained with crc32Combine, never read again) and
// the length close it. One member, not concatenated members, so every decoder takes it, curl's included.

const deflateRaw = promisify(deflateRawCallback);

// A deflate block with BFINAL set, fixed Huffman codes and nothing in it: ends the stream.
const FINAL_EMPTY_BLOCK = Buffer.from([0x03, 0x00]);
// ID1 ID2, CM = deflate, no flags, no mtime, no extra flags, OS = unknown (as zlib writes it).
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** The trailer: CRC-32 and length modulo 2^32, each little-endian (RFC 1952). */
const TRAILER_BYTES = 8;
const LENGTH_MODULUS = 2 ** 32;

/** A chunk raw-deflated alone, with what the member's trailer needs of it. */
export interface DeflatedChunk {
  readonly deflated: Buffer;
  /** CRC-32 of the chunk's plain bytes. */
  readonly crc: number;
  /** Length of the chunk's plain bytes. */
  readonly length: number;
}

/**
 * The gzip member of the chunks back to back, as buffers to send in order: the deflated chunks are
 * written as they are, never copied into one buffer.
 */
export function gzipMember(chunks: readonly DeflatedChunk[]): Buffer[] {
  let crc = 0;
  let length = 0;
  const out: Buffer[] = [GZIP_HEADER];
  for (const chunk of chunks) {
    crc = crc32Combine(crc, chunk.crc, chunk.length);
    length += chunk.length;
    if (chunk.deflated.length > 0) out.push(chunk.deflated);
  }
  const trailer = Buffer.alloc(TRAILER_BYTES);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(length % LENGTH_MODULUS, 4);
  out.push(FINAL_EMPTY_BLOCK, trailer);
  return out;
}

/** A chunk raw-deflated alone, ending in a sync flush (a piece that another can follow in one member). */
export async function deflateChunk(chunk: Buffer): Promise<DeflatedChunk> {
  // Node's crc32 answers 0 for an empty buffer backed by no memory (`Buffer.from('')`); the CRC of
  // nothing is 0 all the same, and nothing needs deflating.
  if (chunk.length === 0) return { deflated: Buffer.alloc(0), crc: 0, length: 0 };
  const crc = crc32(chunk);
  const deflated = await deflateRaw(chunk, { finishFlush: constants.Z_SYNC_FLUSH });
  return { deflated, crc, length: chunk.length };
}
