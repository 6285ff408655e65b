import { deflateOpen } from './gzip-member.js';

// The scrape cache's policy over gzip-member.ts's algorithm: which chunks are deflated, how many at
// once, and which keep their deflated bytes (a chunk that lives on, a block of lines that did not
// change, is not deflated again).

/** Deflate jobs on the thread pool at once (the pool has four threads, two cores are expected). */
const DEFLATES_IN_FLIGHT = 2;

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
      return await deflateOpen(chunk);
    } finally {
      this.#inFlight--;
      this.#queue.shift()?.();
    }
  }
}
