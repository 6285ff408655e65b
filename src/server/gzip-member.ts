import { promisify } from 'node:util';
import { constants, crc32, deflateRaw as deflateRawCallback } from 'node:zlib';
import { crc32Combine } from '../metrics/crc32-combine.js';

// One gzip member stitched from pieces deflated on their own. Every chunk is raw-deflated alone,
// ending in a sync flush, which leaves the stream byte-aligned and open, so that the pieces can
// follow each other inside one member; an empty final block, the CRC-32 (chained across pieces with
// crc32Combine, never read again) and the length close it. One member, not concatenated members, so
// every decoder takes it, curl's included. A chunk that lives on (a block of lines that did not
// change) keeps its deflated bytes.

const deflateRaw = promisify(deflateRawCallback);

// A deflate block with BFINAL set, fixed Huffman codes and nothing in it: ends the stream.
const FINAL_EMPTY_BLOCK = Buffer.from([0x03, 0x00]);
// ID1 ID2, CM = deflate, no flags, no mtime, no extra flags, OS = unknown (as zlib writes it).
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/** Deflate jobs on the thread pool at once (the pool has four threads, two cores are expected). */
const DEFLATES_IN_FLIGHT = 2;

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

/**
 * Raw deflate of chunks, each on its own as a stream left open and byte-aligned, on the thread pool,
 * at most {@link DEFLATES_IN_FLIGHT} at a time (each holds a quarter of a megabyte of zlib state
 * until it ends, and a body's first gzip build is a thousand chunks); a chunk deflated before, and
 * still alive, is not deflated again.
 */
export class ChunkDeflater {
  readonly #deflated = new WeakMap<Buffer, Promise<Buffer>>();
  #inFlight = 0;
  readonly #queue: (() => void)[] = [];

  async deflate(chunks: readonly Buffer[]): Promise<readonly Buffer[]> {
    return Promise.all(
      chunks.map(async (chunk) => {
        let deflated = this.#deflated.get(chunk);
        if (deflated === undefined) {
          deflated = this.#one(chunk);
          this.#deflated.set(chunk, deflated);
          deflated.catch(() => this.#deflated.delete(chunk));
        }
        return deflated;
      }),
    );
  }

  async #one(chunk: Buffer): Promise<Buffer> {
    if (this.#inFlight >= DEFLATES_IN_FLIGHT) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#inFlight++;
    try {
      return await deflateRaw(chunk, { finishFlush: constants.Z_SYNC_FLUSH });
    } finally {
      this.#inFlight--;
      this.#queue.shift()?.();
    }
  }
}
