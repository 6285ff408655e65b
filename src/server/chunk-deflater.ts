import { deflateChunk, type DeflatedChunk } from './gzip-member.js';

/** Deflate jobs on the thread pool at once (the pool has four threads, two cores are expected). */
const DEFLATES_IN_FLIGHT = 2;

/**
 * The one memo of deflated chunks: raw deflate of each chunk on its own (gzip-member.ts), on the thread
 * pool, at most {@link DEFLATES_IN_FLIGHT} at a time (each holds a quarter of a megabyte of zlib state
 * until it ends, and a body's first gzip build is a thousand chunks). A chunk that lives on (a block
 * of lines that did not change, a family's header) keeps its deflated bytes and CRC-32 for as long as
 * the chunk itself is alive, so a rebuild deflates only what changed.
 */
export class ChunkDeflater {
  readonly #deflated = new WeakMap<Buffer, Promise<DeflatedChunk>>();
  #inFlight = 0;
  readonly #queue: (() => void)[] = [];

  /** Each chunk deflated, in order. */
  async deflate(chunks: readonly Buffer[]): Promise<DeflatedChunk[]> {
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

  async #one(chunk: Buffer): Promise<DeflatedChunk> {
    if (this.#inFlight >= DEFLATES_IN_FLIGHT) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#inFlight++;
    try {
      return await deflateChunk(chunk);
    } finally {
      this.#inFlight--;
      this.#queue.shift()?.();
    }
  }
}
