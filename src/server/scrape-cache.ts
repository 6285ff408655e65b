import { promisify } from 'node:util';
import { constants, crc32, deflateRaw as deflateRawCallback } from 'node:zlib';
import type { Registry } from 'prom-client';
import { crc32Combine } from '../metrics/crc32-combine.js';
import { renderRegistry, type Format } from '../metrics/exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from '../metrics/family-filter.js';
import type { Rendered } from '../metrics/family-table.js';

const deflateRaw = promisify(deflateRawCallback);

/** How a /metrics body is sent. */
export type Encoding = 'identity' | 'gzip';

/** One run of /metrics that changes on its own schedule. */
export interface Section {
  /** Changes whenever the rendered text would; an unchanged version promises unchanged text. */
  version(): number | string;
  /**
   * The section as text, or as bytes to send back to back (a large section is never one string),
   * with the families `keep` shows, and their CRC-32 when it is known (else it is computed here, on
   * the first gzip scrape).
   */
  render(format: Format, keep: FamilyPredicate): string | readonly Buffer[] | Rendered | Promise<string>;
}

interface Piece {
  readonly version: number | string;
  /** The {@link ExpositionCache.reconfigure} generation it was rendered in: a later one renders it again. */
  readonly generation: number;
  readonly chunks: readonly Buffer[];
  readonly length: number;
  /** Raw deflate of each chunk ending in a sync flush (byte-aligned, not final), on the first gzip scrape. */
  deflated: Promise<readonly Buffer[]> | undefined;
  /** CRC-32 of this piece's bytes alone, chained into the body's by {@link crc32Combine}. */
  crc: number | undefined;
}

interface Body {
  readonly versions: readonly (number | string)[];
  readonly generation: number;
  readonly chunks: Promise<readonly Buffer[]>;
  /** The chunks once built. */
  built: readonly Buffer[] | undefined;
  /**
   * While a {@link ExpositionCache.refresh} builds this body ahead of the scrapes: the body it
   * replaces, which scrapes are answered meanwhile.
   */
  previous: readonly Buffer[] | undefined;
  /** When a scrape last asked for it (ms since the epoch). */
  lastAsked: number;
  /** When this body and the ones before it were built, the latest last (at most {@link #burst}). */
  readonly builds: readonly number[];
}

/**
 * A body is rebuilt ahead of scrapes only while it is asked for at least this often: a scraper
 * polling back to back, whose tail latency a rebuild on its path would make. Prometheus, every 15 s
 * or more, pays one rebuild per scrape at most, which costs less than rebuilding every second for it.
 */
const KEEP_WARM_MS = 5_000;

// A deflate block with BFINAL set, fixed Huffman codes and nothing in it: ends the stream.
const FINAL_EMPTY_BLOCK = Buffer.from([0x03, 0x00]);
// ID1 ID2, CM = deflate, no flags, no mtime, no extra flags, OS = unknown (as zlib writes it).
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/** Process and Node.js metrics (CPU, memory, event loop lag…) are read at most this long ago. */
const SELF_METRICS_MAX_AGE_MS = 1000;

/** Deflate jobs on the thread pool at once (the pool has four threads, two cores are expected). */
const DEFLATES_IN_FLIGHT = 2;

/** Rebuilds of one body per second, {@link keepWarm}'s included. */
const REBUILDS_PER_SECOND = 2;

/** What the poller renders: the data series, and the health metrics that speak for them. */
export interface PolledSections {
  readonly data: Section;
  readonly health: Section;
}

/**
 * The /metrics cache of an exporter: the data series, then our own health metrics (and build
 * info), then the process and Node.js metrics of `registry`, then OpenMetrics' `# EOF`. The polled
 * sections move as the poller hands them over (the data and the health series that speak for them
 * from the same moment: `upstash_up` never lags its series); process metrics show within the
 * second. A thousand databases' polls land every 10 ms, and a body of megabytes rebuilt (and
 * deflated) for each would leave no time for scrapes: a body is rebuilt at most
 * {@link REBUILDS_PER_SECOND} times a second ({@link keepWarm}'s rebuild included, which is forced),
 * so a scrape shows what had landed up to a second before it.
 */
export function createMetricsCache(
  polled: PolledSections,
  registry: Registry,
  keep: FamilyPredicate = ALL_FAMILIES,
): ExpositionCache {
  return new ExpositionCache(
    [
      polled.data,
      polled.health,
      {
        version: () => Math.floor(Date.now() / SELF_METRICS_MAX_AGE_MS),
        render: async (format, keep) => renderRegistry(registry, format, keep),
      },
      { version: () => 0, render: (format) => (format === 'openmetrics' ? '# EOF\n' : '') },
    ],
    { burst: REBUILDS_PER_SECOND, keep },
  );
}

/** What tells {@link keepWarm} that the polled sections moved (the poll thread's publications). */
export interface Publisher {
  onPublished(listener: (publication: Published) => void): void;
}

/** What a {@link Publisher} says of each publication. */
export interface Published {
  /** This publication made the exporter ready, so the next scrape must show it. */
  readonly readied: boolean;
}

/**
 * Refreshes `cache` just after each second turns (when the process metrics' version moves), and as
 * soon as `polled` publishes, until the returned function is called. A refresh that fails is not
 * reported here: it leaves the body stale, so the next scrape rebuilds it on its own path, and
 * reports what fails then as any scrape does.
 */
export function keepWarm(cache: ExpositionCache, polled?: Publisher): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  polled?.onPublished(({ readied }) => {
    if (stopped) return;
    // A scrape after /readyz turned 200 shows every unit's first poll: it waits for this rebuild.
    if (readied) cache.renew();
    void cache.refresh().catch(() => undefined);
  });
  const schedule = (): void => {
    const delay = SELF_METRICS_MAX_AGE_MS - (Date.now() % SELF_METRICS_MAX_AGE_MS) + 1;
    timer = setTimeout(() => {
      void cache
        .refresh()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) schedule();
        });
    }, delay);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * The one cache behind /metrics. Scrapes outnumber polls by orders of magnitude (several Prometheus
 * servers, every few seconds) and a large account's data section runs to megabytes, so a scrape must
 * not re-render or re-compress what has not changed:
 *
 * - the body is a list of sections (the data series, our own metrics, `# EOF`), each with a
 *   version; a section is rendered and encoded to bytes once per version and format, never per
 *   scrape, and (on the first gzip scrape) each of its chunks is deflated once: a chunk that a new
 *   version still holds (a family's block of lines that did not change) keeps its deflated bytes;
 * - the body, plain or gzip, is the list of those cached pieces (never copied into one buffer: a
 *   megabyte copied every second is garbage that lingers outside the JS heap), kept per format and
 *   encoding until some section's version moves, so a scrape in between costs what a static file
 *   server's answer costs;
 * - gzip bodies are stitched: every chunk is raw-deflated on its own ending in a sync flush, which
 *   leaves the stream byte-aligned and open, so the pieces can follow each other inside one gzip
 *   member; an empty final block, the CRC-32 (chained across sections) and the length close it. One
 *   member, not concatenated members, so every decoder takes it, curl's included.
 *
 * Freshness is the sections' business: a section whose values move all the time (process metrics)
 * makes its version from the clock, so it is at most that old.
 */
export class ExpositionCache {
  readonly #sections: readonly Section[];
  readonly #pieces = new Map<string, Promise<Piece>>();
  readonly #bodies = new Map<string, Body>();
  /** Each chunk's deflated bytes, for as long as the chunk lives. */
  readonly #deflated = new WeakMap<Buffer, Promise<Buffer>>();
  /** Deflates in flight, and those waiting for one to end. */
  #deflating = 0;
  readonly #deflateQueue: (() => void)[] = [];

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
   * the next scrape renders every section again whatever the burst limit, so that a reload that has
   * been answered shows in the next scrape. Then bodies are cached as before.
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
    return this.#body(format, encoding, Date.now(), false);
  }

  /**
   * Rebuilds, ahead of the scrapes, every body scraped in the last {@link KEEP_WARM_MS} whose
   * sections moved since. Called each time a section may have moved (each second, as process
   * metrics do), it takes the rendering and compressing off the scrape that would otherwise come
   * first: with one scraper that is one scrape a second, which is what its latency's 99th
   * percentile is made of.
   */
  async refresh(): Promise<void> {
    const now = Date.now();
    // Every rebuild starts now, before the first await: a scrape from here on finds its body being
    // rebuilt, and is answered the one before (see #body).
    const rebuilds = [...this.#bodies]
      .filter(([, body]) => now - body.lastAsked <= KEEP_WARM_MS)
      .map(async ([key, body]) => {
        const [format, encoding] = key.split('/') as [Format, Encoding];
        return this.#body(format, encoding, body.lastAsked, true);
      });
    await Promise.all(rebuilds);
  }

  async #body(
    format: Format,
    encoding: Encoding,
    asked: number,
    refreshing: boolean,
  ): Promise<readonly Buffer[]> {
    const versions = this.#sections.map((section) => section.version());
    const generation = this.#generation;
    const key = `${format}/${encoding}`;
    const cached = this.#bodies.get(key);
    const now = Date.now();
    const recent = cached?.builds.filter((at) => now - at < 1000) ?? [];
    if (
      cached?.generation === generation &&
      (sameVersions(cached.versions, versions) || (!refreshing && recent.length >= this.#burst))
    ) {
      cached.lastAsked = Math.max(cached.lastAsked, asked);
      // A scrape never waits for a rebuild ahead of the scrapes: it is answered the body before.
      if (!refreshing && cached.built === undefined && cached.previous !== undefined) return cached.previous;
      return cached.chunks;
    }
    // Concurrent scrapes of a stale body share one build.
    const chunks = this.#build(format, encoding, versions, generation);
    const body: Body = {
      versions,
      generation,
      chunks,
      built: undefined,
      // Not across a reload: the scrape after one shows it.
      previous:
        refreshing && cached?.generation === generation ? (cached.built ?? cached.previous) : undefined,
      lastAsked: Math.max(cached?.lastAsked ?? 0, asked),
      builds: [...recent, now].slice(-Math.min(this.#burst, 8)),
    };
    chunks.then(
      (built) => {
        body.built = built;
        body.previous = undefined;
      },
      () => undefined,
    );
    this.#bodies.set(key, body);
    try {
      return await chunks;
    } catch (error) {
      if (this.#bodies.get(key) === body) this.#bodies.delete(key);
      throw error;
    }
  }

  async #build(
    format: Format,
    encoding: Encoding,
    versions: readonly (number | string)[],
    generation: number,
  ): Promise<readonly Buffer[]> {
    const keep = this.#keep;
    const pieces = await Promise.all(
      this.#sections.map(async (section, index) =>
        this.#piece(index, section, format, versions[index] ?? 0, generation, keep),
      ),
    );
    if (encoding === 'identity') return pieces.flatMap((piece) => piece.chunks);
    const deflated = await Promise.all(
      pieces.map(async (piece) => (piece.deflated ??= this.#deflate(piece.chunks))),
    );
    let crc = 0;
    let length = 0;
    for (const piece of pieces) {
      piece.crc ??= crc32After(piece.chunks, 0);
      crc = crc32Combine(crc, piece.crc, piece.length);
      length += piece.length;
    }
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(length % 2 ** 32, 4);
    // One buffer per gzip body (a megabyte for a large account, joined at most twice a second): a
    // body of a thousand deflated pieces would cost every scrape a thousand writes.
    return [Buffer.concat([GZIP_HEADER, ...deflated.flat(), FINAL_EMPTY_BLOCK, trailer])];
  }

  /**
   * Each chunk raw-deflated on its own, as a stream left open and byte-aligned (so more deflate data
   * may follow), each a job on the thread pool: a chunk deflated before is not deflated again.
   */
  async #deflate(chunks: readonly Buffer[]): Promise<readonly Buffer[]> {
    return Promise.all(
      chunks.map(async (chunk) => {
        let deflated = this.#deflated.get(chunk);
        if (deflated === undefined) {
          deflated = this.#deflateOne(chunk);
          this.#deflated.set(chunk, deflated);
          deflated.catch(() => this.#deflated.delete(chunk));
        }
        return deflated;
      }),
    );
  }

  /**
   * One chunk's raw deflate, at most {@link DEFLATES_IN_FLIGHT} at a time: each holds a quarter of a
   * megabyte of zlib state until it ends, and a body's first gzip build is a thousand chunks.
   */
  async #deflateOne(chunk: Buffer): Promise<Buffer> {
    if (this.#deflating >= DEFLATES_IN_FLIGHT) {
      await new Promise<void>((resolve) => this.#deflateQueue.push(resolve));
    }
    this.#deflating++;
    try {
      return await deflateRaw(chunk, { finishFlush: constants.Z_SYNC_FLUSH });
    } finally {
      this.#deflating--;
      this.#deflateQueue.shift()?.();
    }
  }

  async #piece(
    index: number,
    section: Section,
    format: Format,
    version: number | string,
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
      const given = typeof rendered === 'string' || isChunkList(rendered) ? undefined : rendered;
      const bytes =
        typeof rendered === 'string'
          ? [Buffer.from(rendered, 'utf8')]
          : isChunkList(rendered)
            ? rendered
            : rendered.chunks;
      const chunks = bytes.filter((chunk) => chunk.length > 0);
      let length = 0;
      for (const chunk of chunks) length += chunk.length;
      return { version, generation, chunks, length, deflated: undefined, crc: given?.crc };
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

/** CRC-32 of `chunks`, back to back, continuing from `prefix`, the CRC of what came before them. */
function crc32After(chunks: readonly Buffer[], prefix: number): number {
  let crc = prefix;
  // Node's crc32 answers 0 for an empty buffer backed by no memory (`Buffer.from('')`), whatever the
  // starting value; the CRC of nothing more is the starting value.
  for (const chunk of chunks) if (chunk.length > 0) crc = crc32(chunk, crc);
  return crc;
}

function isChunkList(rendered: readonly Buffer[] | Rendered): rendered is readonly Buffer[] {
  return Array.isArray(rendered);
}

function sameVersions(a: readonly (number | string)[], b: readonly (number | string)[]): boolean {
  return a.length === b.length && a.every((version, index) => version === b[index]);
}
