import { promisify } from 'node:util';
import {
  constants,
  crc32,
  createDeflateRaw,
  deflateRaw as deflateRawCallback,
  type DeflateRaw,
} from 'node:zlib';

// One gzip member stitched from chunks deflated on their own (which chunks are deflated when, and
// which are kept, is metrics-endpoint.ts; the zlib streams are reused, ReusedDeflater). Each chunk is
// raw-deflated alone, ending in a sync flush, which leaves the stream byte-aligned and open, so that
// the chunks can follow each other inside one member; an empty final block, the CRC-32 (chained with
// crc32Combine, never read again) and the length close it. One member, not concatenated members, so
// every decoder takes it, curl's included.

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

/**
 * A raw deflate stream reused chunk after chunk, reset before each (so that each is deflated alone):
 * its zlib state (a quarter of a megabyte) is made once, not per chunk. One chunk at a time.
 */
export class ReusedDeflater {
  #stream: DeflateRaw | undefined;
  #output: Buffer[] = [];

  /** A chunk raw-deflated alone, ending in a sync flush, as {@link deflateChunk} makes it. */
  async deflate(chunk: Buffer): Promise<DeflatedChunk> {
    if (chunk.length === 0) return { deflated: Buffer.alloc(0), crc: 0, length: 0 };
    const crc = crc32(chunk);
    const stream = this.#open();
    stream.reset();
    this.#output = [];
    const deflated = await new Promise<Buffer>((resolve, reject) => {
      const failed = (error: Error): void => {
        this.#stream = undefined;
        reject(error);
      };
      stream.once('error', failed);
      stream.write(chunk);
      stream.flush(constants.Z_SYNC_FLUSH, () => {
        stream.off('error', failed);
        // Flowing from its start, the stream emits its output as it is made: all of it is here.
        resolve(Buffer.concat(this.#output));
      });
    });
    this.#output = [];
    return { deflated, crc, length: chunk.length };
  }

  #open(): DeflateRaw {
    if (this.#stream === undefined) {
      const stream = createDeflateRaw();
      stream.on('data', (data: Buffer) => this.#output.push(data));
      this.#stream = stream;
    }
    return this.#stream;
  }
}

// zlib's crc32_combine, which Node does not expose: the CRC-32 of two byte strings back to back from
// the CRC of each and the second one's length, without reading either again. Each chunk's CRC is taken
// once, when it is deflated (deflateChunk); a gzip body chains them into its trailer in
// microseconds instead of re-reading megabytes on the event loop.

const POLY = 0xedb88320;

/** a·b modulo the CRC-32 polynomial (reflected bit order, as zlib's multmodp). */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  let factor = b;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= factor;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    factor = factor & 1 ? (factor >>> 1) ^ POLY : factor >>> 1;
  }
  return p >>> 0;
}

/** x^(2^n) modulo the polynomial, for n in 0..31 (zlib's x2n_table), made on first use. */
let powers: number[] | undefined;

function x2nTable(): number[] {
  if (powers !== undefined) return powers;
  const table = [0x40000000];
  let p = 0x40000000;
  for (let n = 1; n < 32; n++) {
    p = multiplyModP(p, p);
    table.push(p);
  }
  powers = table;
  return table;
}

/** x^(n·2^k) modulo the polynomial. */
function x2nModP(n: number, k: number): number {
  const table = x2nTable();
  let p = 0x80000000;
  let rest = n;
  let bit = k;
  while (rest > 0) {
    if (rest % 2 === 1) p = multiplyModP(table[bit & 31] ?? 0, p);
    rest = Math.floor(rest / 2);
    bit++;
  }
  return p;
}

/** The CRC-32 of A then B, from `crcA`, `crcB` and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB === 0) return crcA >>> 0;
  return (multiplyModP(x2nModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
