import type { Registry } from 'prom-client';
import { renderRegistry, type Format } from '../metrics/exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from '../metrics/family-filter.js';
import type { Rendered } from '../metrics/section-store.js';
import { ChunkDeflater } from './chunk-deflater.js';
import { crc32Of, gzipMember } from './gzip-member.js';

/** How a /metrics body is sent. */
export type Encoding = 'identity' | 'gzip';

/** One run of /metrics that changes on its own schedule. */
export interface Section {
  /** Changes whenever the rendered text would; an unchanged version promises unchanged text. */
  version(): number;
  /**
   * The section as bytes to send back to back (a large section is never one string), with the
   * families `keep` shows, and their CRC-32.
   */
  render(format: Format, keep: FamilyPredicate): Rendered | Promise<Rendered>;
}

interface Piece {
  readonly version: number;
  /** The {@link ExpositionCache.reconfigure} generation it was rendered in: a later one renders it again. */
  readonly generation: number;
  readonly chunks: readonly Buffer[];
  readonly length: number;
  /** Raw deflate of each chunk ending in a sync flush (byte-aligned, not final), on the first gzip scrape. */
  deflated: Promise<readonly Buffer[]> | undefined;
  /** CRC-32 of this piece's bytes alone, chained into the body's (gzip-member.ts). */
  readonly crc: number;
}

interface Body {
  readonly versions: readonly number[];
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

/** Process and Node.js metrics (CPU, memory, event loop lag…) are read at most this long ago. */
const SELF_METRICS_MAX_AGE_MS = 1000;

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
        render: async (format, keep) => renderedText(await renderRegistry(registry, format, keep)),
      },
      { version: () => 0, render: (format) => renderedText(format === 'openmetrics' ? '# EOF\n' : '') },
    ],
    { burst: REBUILDS_PER_SECOND, keep },
  );
}

/**
 * What tells {@link keepWarm} that the polled sections moved (the poll thread); `readied`: this made
 * the exporter ready, so the next scrape must show it.
 */
export interface SectionsMoved {
  onMoved(listener: (readied: boolean) => void): void;
}

/** Text as a section's bytes. */
export function renderedText(text: string): Rendered {
  const bytes = Buffer.from(text, 'utf8');
  return { chunks: [bytes], crc: crc32Of([bytes]) };
}

/**
 * Refreshes `cache` just after each second turns (when the process metrics' version moves), and as
 * soon as `polled` publishes, until the returned function is called. A refresh that fails is not
 * reported here: it leaves the body stale, so the next scrape rebuilds it on its own path, and
 * reports what fails then as any scrape does.
 */
export function keepWarm(cache: ExpositionCache, polled?: SectionsMoved): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  polled?.onMoved((readied) => {
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
    versions: readonly number[],
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
      pieces.map(async (piece) => (piece.deflated ??= this.#deflater.deflate(piece.chunks))),
    );
    return [
      gzipMember(
        pieces.map((piece, index) => ({
          deflated: deflated[index] ?? [],
          crc: piece.crc,
          length: piece.length,
        })),
      ),
    ];
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
      const chunks = rendered.chunks.filter((chunk) => chunk.length > 0);
      let length = 0;
      for (const chunk of chunks) length += chunk.length;
      return { version, generation, chunks, length, deflated: undefined, crc: rendered.crc };
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

function sameVersions(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((version, index) => version === b[index]);
}
