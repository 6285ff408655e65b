import type { Registry } from 'prom-client';
import { renderRegistry, type Format } from '../metrics/exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from '../metrics/family-filter.js';
import type { Rendered } from '../metrics/section-store.js';
import { gzipMember, ReusedDeflater, type DeflatedChunk } from './gzip-member.js';

// How a scrape of /metrics is answered, in one place (docs/architecture.md, The serving path, walks
// it step by step). The body is its sections back to back: the data series and the health series the
// poll worker published (worker/store.ts holds them as each unit's bytes), then the process metrics
// of this thread's registry, then OpenMetrics' `# EOF`. One body per format, built when a section's
// version moved, from the pieces of the sections that did not move and the render of those that did;
// gzip is that body's chunks, each deflated once while it lives, stitched into one member
// (gzip-member.ts). Nothing is ever copied into one buffer (docs/operations.md, Threads and memory).
// Change detectors: the sections' versions (and the reload generation). Caches: the bodies (with
// their sections' pieces) and the deflated chunks.

/** How a /metrics body is sent. */
export type Encoding = 'identity' | 'gzip';

/** One run of /metrics that changes on its own schedule. */
export interface Section {
  /** Changes whenever the rendered text would; an unchanged version promises unchanged text. */
  version(): number;
  /** The section as bytes to send back to back, with the families `keep` shows. */
  render(format: Format, keep: FamilyPredicate): Rendered | Promise<Rendered>;
}

/** What the poller renders: the data series, and the health metrics that speak for them. */
export interface PolledSections {
  readonly data: Section;
  readonly health: Section;
}

/** What tells {@link keepWarm} that the polled sections moved; `readied`: that made the exporter ready. */
export interface SectionsMoved {
  onMoved(listener: (readied: boolean) => void): void;
}

/** The Content-Type of each exposition format. */
export const CONTENT_TYPES: Record<Format, string> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** Process and Node.js metrics (CPU, memory, event loop lag…) are read at most this long ago. */
export const SELF_METRICS_MAX_AGE_MS = 1000;

/**
 * Rebuilds of one body a scrape may cause per second: a thousand databases' polls land every 10 ms,
 * and a body of megabytes rebuilt (and deflated) for each would leave no time for scrapes. Beyond it
 * a scrape shows what had landed up to a second before it ({@link keepWarm} rebuilds it then).
 */
export const REBUILDS_PER_SECOND = 2;

/**
 * A body is rebuilt ahead of scrapes only while it is asked for at least this often: a scraper
 * polling back to back, whose tail latency a rebuild on its path would make. Prometheus, every 15 s
 * or more, pays one rebuild per scrape at most, which costs less than rebuilding every second for it.
 */
export const KEEP_WARM_MS = 5_000;

/** The window over which a body's rebuilds are counted against the burst bound. */
export const REBUILD_WINDOW_MS = 1_000;

/** Deflate jobs on the thread pool at once, each on a zlib stream of its own (a quarter of a MB of state). */
const DEFLATES_IN_FLIGHT = 2;

/**
 * OpenMetrics when the Accept header prefers it (by q-value; Prometheus sends both with weights),
 * the text format 0.0.4 otherwise.
 */
export function negotiateFormat(accept: string | undefined): Format {
  if (accept === undefined) return 'text';
  let openMetrics = -1;
  let text = -1;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isNaN(q)) continue;
    if (type === 'application/openmetrics-text') openMetrics = Math.max(openMetrics, q);
    else if (type === 'text/plain' || type === '*/*' || type === 'text/*') text = Math.max(text, q);
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'text';
}

/** Whether the Accept-Encoding header takes gzip (listed, and not with `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    return coding === 'gzip' && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

/** What a body's latest build shows, and how often it was built lately. */
export interface BodyState {
  /** The sections' versions the latest build renders. */
  readonly versions: readonly number[];
  /** The reload generation the latest build renders. */
  readonly generation: number;
  /** When its recent builds started (ms since the epoch), oldest first. */
  readonly builds: readonly number[];
}

/** What is asked for now. */
export interface Asked {
  readonly versions: readonly number[];
  readonly generation: number;
  readonly now: number;
  /** Rebuilds per {@link REBUILD_WINDOW_MS} a scrape may cause. */
  readonly burst: number;
  /** A rebuild ahead of the scrapes ({@link keepWarm}), which the burst bound does not hold back. */
  readonly refreshing: boolean;
}

/**
 * Whether the body must be built anew: never built, built before a reload (the next scrape shows a
 * reload whatever the bound), or its sections moved and this is a refresh or a scrape within the
 * burst bound. Beyond the bound a scrape is answered the body as it is, and the next refresh
 * rebuilds it.
 */
export function mustRebuild(body: BodyState | undefined, asked: Asked): boolean {
  if (body?.generation !== asked.generation) return true;
  const same = body.versions.every((version, index) => version === asked.versions[index]);
  if (same && body.versions.length === asked.versions.length) return false;
  return asked.refreshing || recentBuilds(body, asked.now).length < asked.burst;
}

/** The builds of `body` within the window before `now`, oldest first. */
export function recentBuilds(body: BodyState | undefined, now: number): number[] {
  return body?.builds.filter((at) => now - at < REBUILD_WINDOW_MS) ?? [];
}

/** Whether a body last asked for at `lastAsked` is rebuilt ahead of the scrapes at `now`. */
export function keptWarm(lastAsked: number, now: number): boolean {
  return now - lastAsked <= KEEP_WARM_MS;
}

/** A section rendered (or being rendered) for one version and reload. */
interface Piece {
  readonly version: number;
  readonly generation: number;
  readonly chunks: Promise<Rendered>;
}

/** One build of a format's body: its chunks, and their gzip member once asked for. */
interface Built {
  readonly plain: readonly Buffer[];
  gzip: Promise<readonly Buffer[]> | undefined;
}

/** One format's body as it is cached. */
interface Body extends BodyState {
  /** Each section's piece in the latest build: what the next build keeps of it. */
  readonly pieces: readonly Piece[];
  /** The latest build, done or under way: concurrent scrapes of a stale body share it. */
  readonly building: Promise<Built>;
  /** The last build that finished. */
  built: Built | undefined;
  /** The latest build is a refresh ahead of the scrapes: until it is done, a scrape gets {@link built}. */
  ahead: boolean;
  /** When a scrape last asked for it, and for it gzipped (ms since the epoch). */
  lastAsked: number;
  gzipAsked: number;
}

/**
 * /metrics: the body in each format, rebuilt only when a section moved, at most {@link
 * REBUILDS_PER_SECOND} times a second for the scrapes, and ahead of them while they come
 * ({@link refresh}); scrapes outnumber polls by orders of magnitude, and a large account's data runs
 * to megabytes.
 */
export class MetricsEndpoint {
  readonly #sections: readonly Section[];
  readonly #bodies = new Map<Format, Body>();
  /** Each chunk deflated, for as long as the chunk lives (a block of lines, a family's header). */
  readonly #deflated = new WeakMap<Buffer, Promise<DeflatedChunk>>();
  /** Idle zlib streams, each reused chunk after chunk (their state made once), and who waits for one. */
  readonly #deflaters = Array.from({ length: DEFLATES_IN_FLIGHT }, () => new ReusedDeflater());
  readonly #waiting: ((deflater: ReusedDeflater) => void)[] = [];
  readonly #burst: number;
  #keep: FamilyPredicate;
  #generation = 0;

  /** `burst`: rebuilds per second a scrape may cause (unbounded by default); `keep`: families shown. */
  constructor(sections: readonly Section[], options: { burst?: number; keep?: FamilyPredicate } = {}) {
    this.#sections = sections;
    this.#burst = options.burst ?? Infinity;
    this.#keep = options.keep ?? ALL_FAMILIES;
  }

  /** Applies a reload: shows the families `keep` shows, from the next scrape on. */
  reconfigure(keep: FamilyPredicate): void {
    this.#keep = keep;
    this.renew();
  }

  /** The next scrape renders every section again whatever the burst limit, and waits for it. */
  renew(): void {
    this.#generation++;
  }

  /** The whole /metrics body in `format`, encoded as asked: chunks to be sent back to back. */
  async body(format: Format, encoding: Encoding): Promise<readonly Buffer[]> {
    const now = Date.now();
    const built = await this.#body(format, now, encoding === 'gzip' ? now : 0, false);
    return encoding === 'identity' ? built.plain : this.#gzip(built);
  }

  /** Rebuilds, ahead of the scrapes, every body asked for lately whose sections moved since. */
  async refresh(): Promise<void> {
    const now = Date.now();
    // Every rebuild starts before the first await: a scrape from here on finds it under way.
    const rebuilds = [...this.#bodies]
      .filter(([, body]) => keptWarm(body.lastAsked, now))
      .map(async ([format, body]) => {
        const built = await this.#body(format, body.lastAsked, body.gzipAsked, true);
        if (keptWarm(body.gzipAsked, now)) await this.#gzip(built);
      });
    await Promise.all(rebuilds);
  }

  async #body(format: Format, asked: number, gzipAsked: number, refreshing: boolean): Promise<Built> {
    const versions = this.#sections.map((section) => section.version());
    const generation = this.#generation;
    const now = Date.now();
    const cached = this.#bodies.get(format);
    if (cached !== undefined) {
      cached.lastAsked = Math.max(cached.lastAsked, asked);
      cached.gzipAsked = Math.max(cached.gzipAsked, gzipAsked);
    }
    const asks = { versions, generation, now, burst: this.#burst, refreshing };
    if (cached !== undefined && !mustRebuild(cached, asks)) {
      return cached.ahead && !refreshing && cached.built !== undefined ? cached.built : cached.building;
    }
    const keep = this.#keep;
    const pieces = this.#sections.map((section, index): Piece => {
      const version = versions[index] ?? 0;
      const before = cached?.pieces[index];
      if (before?.version === version && before.generation === generation) return before;
      const chunks = (async () => (await section.render(format, keep)).filter((chunk) => chunk.length > 0))();
      return { version, generation, chunks };
    });
    const building = (async (): Promise<Built> => {
      const rendered = await Promise.all(pieces.map(async (piece) => piece.chunks));
      return { plain: rendered.flat(), gzip: undefined };
    })();
    const body: Body = {
      versions,
      generation,
      builds: [...recentBuilds(cached, now), now],
      pieces,
      building,
      // Not across a reload: the scrape after one waits for what it shows.
      built: cached?.generation === generation ? cached.built : undefined,
      ahead: refreshing && cached?.generation === generation,
      lastAsked: cached?.lastAsked ?? asked,
      gzipAsked: cached?.gzipAsked ?? gzipAsked,
    };
    this.#bodies.set(format, body);
    try {
      const built = await building;
      if (body.building === building) {
        body.built = built;
        body.ahead = false;
      }
      return built;
    } catch (error) {
      if (this.#bodies.get(format) === body) this.#bodies.delete(format);
      throw error;
    }
  }

  /** The build's gzip member: each chunk deflated once while it lives, stitched in order. */
  async #gzip(built: Built): Promise<readonly Buffer[]> {
    if (built.gzip === undefined) {
      const gzip = Promise.all(built.plain.map(async (chunk) => this.#deflate(chunk))).then(gzipMember);
      // A failed deflate is not kept: the next scrape deflates again.
      gzip.catch(() => (built.gzip = undefined));
      built.gzip = gzip;
    }
    return built.gzip;
  }

  async #deflate(chunk: Buffer): Promise<DeflatedChunk> {
    let deflated = this.#deflated.get(chunk);
    if (deflated === undefined) {
      deflated = (async () => {
        const deflater =
          this.#deflaters.pop() ?? (await new Promise<ReusedDeflater>((take) => this.#waiting.push(take)));
        try {
          return await deflater.deflate(chunk);
        } finally {
          const next = this.#waiting.shift();
          if (next === undefined) this.#deflaters.push(deflater);
          else next(deflater);
        }
      })();
      this.#deflated.set(chunk, deflated);
      deflated.catch(() => this.#deflated.delete(chunk));
    }
    return deflated;
  }
}

/**
 * The exporter's /metrics, its sections in order: the data series, then our own health metrics (and
 * build info), then the process and Node.js metrics of `registry` (read at most
 * {@link SELF_METRICS_MAX_AGE_MS} ago), then OpenMetrics' `# EOF`. The polled sections move as the
 * poller hands them over, the data and the health series that speak for them from the same moment.
 */
export function createMetricsEndpoint(
  polled: PolledSections,
  registry: Registry,
  keep: FamilyPredicate = ALL_FAMILIES,
): MetricsEndpoint {
  return new MetricsEndpoint(
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

/** Text as a section's bytes. */
export function renderedText(text: string): Rendered {
  return [Buffer.from(text, 'utf8')];
}

/**
 * Keeps the bodies warm: refreshes `endpoint` just after each second turns (when the process metrics'
 * version moves), and as soon as `polled` publishes, until the returned function is called. A refresh
 * that fails leaves the body stale, so the next scrape rebuilds it and reports what fails then.
 */
export function keepWarm(endpoint: MetricsEndpoint, polled?: SectionsMoved): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  polled?.onMoved((readied) => {
    if (stopped) return;
    // A scrape after /readyz turned 200 shows every unit's first poll: it waits for this rebuild.
    if (readied) endpoint.renew();
    void endpoint.refresh().catch(() => undefined);
  });
  const schedule = (): void => {
    const delay = SELF_METRICS_MAX_AGE_MS - (Date.now() % SELF_METRICS_MAX_AGE_MS) + 1;
    timer = setTimeout(() => {
      void endpoint
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
