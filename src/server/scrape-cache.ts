import type { Format } from '../metrics/exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from '../metrics/family-filter.js';
import type { Rendered } from '../metrics/section-store.js';
import { keptWarm, mustRebuild, recentBuilds, type BodyState } from './body-policy.js';
import { ChunkDeflater } from './chunk-deflater.js';
import { gzipMember } from './gzip-member.js';

/** How a /metrics body is sent. */
export type Encoding = 'identity' | 'gzip';

/** One run of /metrics that changes on its own schedule. */
export interface Section {
  /** Changes whenever the rendered text would; an unchanged version promises unchanged text. */
  version(): number;
  /** The section as bytes to send back to back, with the families `keep` shows. */
  render(format: Format, keep: FamilyPredicate): Rendered | Promise<Rendered>;
}

/** A section rendered once per version, format and reload. */
interface Piece {
  readonly version: number;
  readonly generation: number;
  readonly chunks: Rendered;
}

/** One body (a format and an encoding) as it is cached. */
interface Body extends BodyState {
  /** The latest build, done or under way: concurrent scrapes of a stale body share it. */
  building: Promise<readonly Buffer[]>;
  /** The last build that finished. */
  built: readonly Buffer[] | undefined;
  /** The latest build is a refresh ahead of the scrapes: until it is done, a scrape gets {@link built}. */
  ahead: boolean;
  /** When a scrape last asked for it (ms since the epoch). */
  lastAsked: number;
}

/**
 * The one cache behind /metrics. Scrapes outnumber polls by orders of magnitude and a large account's
 * data section runs to megabytes, so a section is rendered once per version and format, and each of
 * its chunks deflated once (chunk-deflater.ts); a body is the list of those chunks, plain or stitched
 * into one gzip member (gzip-member.ts), written to the socket as they are, never copied into one
 * buffer: a rebuild allocates only what changed (docs/operations.md, Threads and memory). When a body
 * is rebuilt is body-policy.ts's.
 */
export class ExpositionCache {
  readonly #sections: readonly Section[];
  readonly #pieces = new Map<string, Promise<Piece>>();
  readonly #bodies = new Map<string, Body>();
  readonly #deflater = new ChunkDeflater();
  readonly #burst: number;
  #keep: FamilyPredicate;
  #generation = 0;

  /**
   * `burst`: a body is rebuilt for a scrape at most this many times per second; beyond that, a
   * scrape is answered the body as it is, and the next {@link refresh} rebuilds it. Unbounded by
   * default. `keep`: the families shown (`metrics.allow` and `metrics.deny`); all by default.
   */
  constructor(sections: readonly Section[], options: { burst?: number; keep?: FamilyPredicate } = {}) {
    this.#sections = sections;
    this.#burst = options.burst ?? Infinity;
    this.#keep = options.keep ?? ALL_FAMILIES;
  }

  /**
   * Applies a reload: shows the families `keep` shows (its `metrics.allow` and `metrics.deny`), and
   * the next scrape renders every section again whatever the burst limit.
   */
  reconfigure(keep: FamilyPredicate): void {
    this.#keep = keep;
    this.renew();
  }

  /**
   * The next scrape renders every section again whatever the burst limit, and waits for it rather
   * than being answered the body before: what moved until now shows in it.
   */
  renew(): void {
    this.#generation++;
  }

  /** The whole /metrics body in `format`, encoded as asked: chunks to be sent back to back. */
  async body(format: Format, encoding: Encoding): Promise<readonly Buffer[]> {
    return this.#body(`${format}/${encoding}`, Date.now(), false);
  }

  /**
   * Rebuilds, ahead of the scrapes, every body scraped lately (body-policy.ts, KEEP_WARM_MS) whose
   * sections moved since, so that the scrape that would come first does not render or compress.
   */
  async refresh(): Promise<void> {
    const now = Date.now();
    // Every rebuild starts before the first await: a scrape from here on finds it under way.
    const rebuilds = [...this.#bodies]
      .filter(([, body]) => keptWarm(body.lastAsked, now))
      .map(async ([key, body]) => this.#body(key, body.lastAsked, true));
    await Promise.all(rebuilds);
  }

  async #body(key: string, asked: number, refreshing: boolean): Promise<readonly Buffer[]> {
    const versions = this.#sections.map((section) => section.version());
    const generation = this.#generation;
    const now = Date.now();
    const cached = this.#bodies.get(key);
    if (cached !== undefined) cached.lastAsked = Math.max(cached.lastAsked, asked);
    const asks = { versions, generation, now, burst: this.#burst, refreshing };
    if (cached !== undefined && !mustRebuild(cached, asks)) {
      return cached.ahead && !refreshing && cached.built !== undefined ? cached.built : cached.building;
    }
    const [format, encoding] = key.split('/') as [Format, Encoding];
    const building = this.#build(format, encoding, versions, generation);
    const body: Body = {
      versions,
      generation,
      builds: [...recentBuilds(cached, now), now],
      building,
      // Not across a reload: the scrape after one waits for what it shows.
      built: cached?.generation === generation ? cached.built : undefined,
      ahead: refreshing && cached?.generation === generation,
      lastAsked: cached?.lastAsked ?? asked,
    };
    this.#bodies.set(key, body);
    try {
      const built = await building;
      if (body.building === building) {
        body.built = built;
        body.ahead = false;
      }
      return built;
    } catch (error) {
      if (this.#bodies.get(key) === body) this.#bodies.delete(key);
      throw error;
    }
  }

  async #build(
    format: Format,
    encoding: Encoding,
    versions: readonly number[],
    generation: number,
  ): Promise<readonly Buffer[]> {
    const keep = this.#keep;
    const pieces = await Promise.all(
      this.#sections.map(async (section, index) =>
        this.#piece(index, section, format, versions[index] ?? 0, generation, keep),
      ),
    );
    const chunks = pieces.flatMap((piece) => piece.chunks);
    if (encoding === 'identity') return chunks;
    return gzipMember(await this.#deflater.deflate(chunks));
  }

  async #piece(
    index: number,
    section: Section,
    format: Format,
    version: number,
    generation: number,
    keep: FamilyPredicate,
  ): Promise<Piece> {
    const key = `${index}/${format}`;
    const cached = this.#pieces.get(key);
    if (cached !== undefined) {
      const piece = await cached;
      if (piece.version === version && piece.generation === generation) return piece;
    }
    const rendering = (async (): Promise<Piece> => {
      const rendered = await section.render(format, keep);
      return { version, generation, chunks: rendered.filter((chunk) => chunk.length > 0) };
    })();
    this.#pieces.set(key, rendering);
    try {
      return await rendering;
    } catch (error) {
      if (this.#pieces.get(key) === rendering) this.#pieces.delete(key);
      throw error;
    }
  }
}
