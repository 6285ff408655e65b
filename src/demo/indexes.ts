import { jsonAnswer } from './answer.js';
import type { Answer } from './answer.js';
import { BodyCache, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext, RouteParams } from './endpoint.js';
import { formatGoTime } from './go-time.js';
import { hashString, noise, round } from './noise.js';

const DAY = 86_400_000;
const GIB = 1024 ** 3;

/** A Vector or Search index the simulated management API lists, with the figures the demo uses. */
export interface DemoIndex {
  readonly id: string;
  readonly name: string;
  readonly type: 'free' | 'payg' | 'fixed';
  readonly region: string;
  /** -1 means unlimited, as Upstash says it. */
  readonly maxDailyQueries: number;
  readonly maxDailyUpdates: number;
  readonly maxMonthlyBandwidth: number;
  readonly maxVectorCount: number;
  /** Share of the daily query limit (or of 100,000 when unlimited) used by the end of a day. */
  readonly load: number;
  /** Vectors added to the indexing backlog per minute (it never drains while this is above 0). */
  readonly pendingPerMinute?: number;
  /** Vector only. */
  readonly similarityFunction?: 'COSINE' | 'EUCLIDEAN' | 'DOT_PRODUCT';
  readonly indexType?: 'DENSE' | 'SPARSE' | 'HYBRID';
  readonly dimensionCount?: number;
}

/**
 * The Vector indexes listed by default: a pay-as-you-go one without daily limits whose backlog grows,
 * a free one near its daily query limit, and a fixed hybrid one.
 */
export const DEMO_VECTOR_INDEXES: readonly DemoIndex[] = [
  {
    id: '5a1f0c2e-7d3b-4e8a-9b6c-1d2e3f4a5b01',
    name: 'docs-embeddings',
    type: 'payg',
    region: 'us-east-1',
    maxDailyQueries: -1,
    maxDailyUpdates: -1,
    maxMonthlyBandwidth: -1,
    maxVectorCount: 200_000_000,
    load: 0.6,
    pendingPerMinute: 40,
    similarityFunction: 'COSINE',
    indexType: 'DENSE',
    dimensionCount: 384,
  },
  {
    id: '5a1f0c2e-7d3b-4e8a-9b6c-1d2e3f4a5b02',
    name: 'hobby-free',
    type: 'free',
    region: 'eu-west-1',
    maxDailyQueries: 10_000,
    maxDailyUpdates: 10_000,
    maxMonthlyBandwidth: 50 * GIB,
    maxVectorCount: 200_000,
    load: 0.95,
    similarityFunction: 'EUCLIDEAN',
    indexType: 'DENSE',
    dimensionCount: 1536,
  },
  {
    id: '5a1f0c2e-7d3b-4e8a-9b6c-1d2e3f4a5b03',
    name: 'recs-hybrid',
    type: 'fixed',
    region: 'us-central1',
    maxDailyQueries: 1_000_000,
    maxDailyUpdates: 1_000_000,
    maxMonthlyBandwidth: -1,
    maxVectorCount: 5_210_000,
    load: 0.3,
    similarityFunction: 'DOT_PRODUCT',
    indexType: 'HYBRID',
    dimensionCount: 1024,
  },
];

/** The Search indexes listed by default: one without limits, and a free one near its bandwidth cap. */
export const DEMO_SEARCH_INDEXES: readonly DemoIndex[] = [
  {
    id: '9c8b7a6d-1e2f-4a3b-8c4d-5e6f7a8b9c01',
    name: 'products-search',
    type: 'payg',
    region: 'us-central1',
    maxDailyQueries: -1,
    maxDailyUpdates: -1,
    maxMonthlyBandwidth: -1,
    maxVectorCount: 2_000_000,
    load: 0.4,
  },
  {
    id: '9c8b7a6d-1e2f-4a3b-8c4d-5e6f7a8b9c02',
    name: 'blog-search-free',
    type: 'free',
    region: 'eu-west-1',
    maxDailyQueries: 10_000,
    maxDailyUpdates: 10_000,
    maxMonthlyBandwidth: 10 * GIB,
    maxVectorCount: 100_000,
    load: 0.5,
  },
];

/**
 * The fake tokens the listing gives an index: distinctive markers, so that a test can prove they
 * never reach a log, a series, a page or an error message.
 */
export function demoIndexToken(id: string, readOnly = false): string {
  return `SIMULATED-INDEX-${readOnly ? 'READONLY-' : ''}TOKEN-${id}`;
}

/** Options of the simulated Vector and Search endpoints. */
export interface IndexesOptions {
  /** The Vector indexes the account has; default {@link DEMO_VECTOR_INDEXES}. */
  vectorIndexes?: readonly DemoIndex[];
  /** The Search indexes the account has; default {@link DEMO_SEARCH_INDEXES}. */
  searchIndexes?: readonly DemoIndex[];
}

type Product = 'vector' | 'search';

/** The listing entry of one index: every field of the OpenAPI's `VectorIndex` or `SearchIndex`. */
function listingEntry(product: Product, index: DemoIndex, origin: number): Record<string, unknown> {
  const common = {
    customer_id: 'demo@example.com',
    id: index.id,
    name: index.name,
    endpoint: `${index.name}-${String(hashString(index.id) % 100_000)}-${index.region.slice(0, 2)}1`,
    token: demoIndexToken(index.id),
    read_only_token: demoIndexToken(index.id, true),
    type: index.type,
    region: index.region,
    max_vector_count: index.maxVectorCount,
    max_daily_updates: index.maxDailyUpdates,
    max_daily_queries: index.maxDailyQueries,
    max_monthly_bandwidth: index.maxMonthlyBandwidth,
    max_writes_per_second: index.type === 'free' ? 100 : 1000,
    max_query_per_second: index.type === 'free' ? 100 : 1000,
    max_reads_per_request: 1000,
    max_writes_per_request: 1000,
    creation_time: Math.floor(origin / 1000) - 40 * 86_400,
    throughput_vector: [{ x: formatGoTime(origin - 60_000, '000'), y: 0 }],
  };
  if (product === 'search') {
    return { ...common, vercel_email: '', max_monthly_reranks: -1, input_enrichment_enabled: false };
  }
  return {
    ...common,
    similarity_function: index.similarityFunction ?? 'COSINE',
    dimension_count: index.dimensionCount ?? 384,
    embedding_model: index.dimensionCount === 384 ? 'BGE_SMALL_EN_V1_5' : '',
    sparse_embedding_model: index.indexType === 'HYBRID' ? 'BM25' : '',
    max_total_metadata_size: 53_687_091_200,
    reserved_price: index.type === 'fixed' ? 60 : 0,
    index_type: index.indexType ?? 'DENSE',
  };
}

/** One index's stats at time t, shaped as the Developer API's `VectorStats`. */
function statsBody(index: DemoIndex, origin: number, t: number, seed: number): unknown {
  const salt = seed ^ hashString(index.id);
  const dayStart = Math.floor(t / DAY) * DAY;
  const now = new Date(t);
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const dayFraction = (t - dayStart) / DAY;
  const monthDays = (t - monthStart) / DAY;
  // Over a day, queries climb to `load` of the limit (a free index ends its day near it).
  const perDay = index.maxDailyQueries === -1 ? 100_000 : index.maxDailyQueries;
  const dailyQueries = Math.round(perDay * index.load * Math.min(1, 0.5 + dayFraction));
  const dailyUpdates = Math.round(dailyQueries / 4);
  const monthlyQueries = Math.round(perDay * index.load * 0.8 * monthDays) + dailyQueries;
  const bandwidthCap = index.maxMonthlyBandwidth === -1 ? 100 * GIB : index.maxMonthlyBandwidth;
  // Bandwidth reaches `load` + 40 % of the cap by the month's end: the free Search index crosses 80 %.
  const bandwidth = Math.round(
    bandwidthCap * Math.min(0.99, (index.load + 0.4) * Math.max(0.9, monthDays / 30)),
  );
  const vectors = Math.round(index.maxVectorCount * 0.4 + ((t - origin) / 60_000) * 25);
  const pending =
    index.pendingPerMinute === undefined
      ? Math.round(20 * noise(salt, Math.floor(t / 60_000), 3))
      : 500 + Math.floor((index.pendingPerMinute * (t - origin)) / 60_000);
  const minutes = Array.from({ length: 60 }, (_, i) => t - (59 - i) * 60_000);
  const series = (base: number, spread: number, k: number) =>
    minutes.map((at) => ({
      x: formatGoTime(Math.floor(at / 60_000) * 60_000, '000'),
      y: round(base + spread * noise(salt, Math.floor(at / 60_000), k), 2),
    }));
  const daily = (value: number) => [{ x: formatGoTime(dayStart, '244068975'), y: value }];
  return {
    pending_index_count: pending,
    current_vector_count: vectors,
    daily_query_count: dailyQueries,
    daily_update_count: dailyUpdates,
    monthly_query_count: monthlyQueries,
    monthly_update_count: Math.round(monthlyQueries / 4),
    monthly_bandwidth_usage: bandwidth,
    storage_usage: vectors * (index.dimensionCount ?? 256) * 4,
    monthly_cost: index.type === 'payg' ? round((monthlyQueries / 100_000) * 0.4, 2) : 0,
    daily_update_requests: daily(dailyUpdates),
    daily_query_requests: daily(dailyQueries),
    daily_bandwidths: daily(Math.round(bandwidth / Math.max(1, monthDays))),
    days: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
    query_throughput: series(5, 10, 11),
    update_throughput: series(1, 3, 12),
    query_latency_mean: series(4, 3, 13),
    query_latency_99: series(18, 12, 14),
    update_latency_mean: series(6, 4, 15),
    update_latency_99: series(30, 20, 16),
    embeds_latency_mean: series(0, 0, 17),
    embeds_latency_99: series(0, 0, 18),
    vector_count: series(vectors, 0, 19),
    data_size: series(vectors * 76, 0, 20),
    daily_rerank_count: 0,
    monthly_rerank_count: 0,
    daily_rerank_requests: daily(0),
    rerank_latency_mean: series(0, 0, 21),
    rerank_latency_99: series(0, 0, 22),
  };
}

/** The indexes of one product that exist: what the listing lists and the stats answer for. */
export class IndexRegistry {
  #indexes: readonly DemoIndex[];
  readonly #changed: (() => void)[] = [];

  constructor(indexes: readonly DemoIndex[]) {
    this.#indexes = indexes;
  }

  get indexes(): readonly DemoIndex[] {
    return this.#indexes;
  }

  /** Replace the indexes that exist; the listing and the stats agree at once. */
  set(indexes: readonly DemoIndex[]): void {
    this.#indexes = indexes;
    for (const listener of this.#changed) listener();
  }

  onChange(listener: () => void): void {
    this.#changed.push(listener);
  }
}

/** One registry per product, shared by its listing and stats endpoints of one simulator. */
const registries = new WeakMap<EndpointContext, Record<Product, IndexRegistry>>();

/** The registries of a simulator, made on first use from its options. */
export function indexRegistries(
  ctx: EndpointContext,
  options: IndexesOptions,
): Record<Product, IndexRegistry> {
  let found = registries.get(ctx);
  if (found === undefined) {
    found = {
      vector: new IndexRegistry(options.vectorIndexes ?? DEMO_VECTOR_INDEXES),
      search: new IndexRegistry(options.searchIndexes ?? DEMO_SEARCH_INDEXES),
    };
    registries.set(ctx, found);
  }
  return found;
}

/** `GET /v2/vector/index` or `GET /v2/search`: every index, with its plan, limits and (fake) tokens. */
export class IndexListing implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #product: Product;
  readonly registry: IndexRegistry;
  readonly #bodies: BodyCache;

  constructor(ctx: EndpointContext, options: IndexesOptions, product: Product) {
    this.#ctx = ctx;
    this.#product = product;
    this.registry = indexRegistries(ctx, options)[product];
    this.#bodies = new BodyCache(ctx.frozen);
    this.registry.onChange(() => this.#bodies.clear());
  }

  answer(): Answer {
    const body = this.#bodies.get('', () =>
      this.registry.indexes.map((index) => listingEntry(this.#product, index, this.#ctx.origin)),
    );
    return { status: 200, body };
  }
}

/** `GET …/{id}/stats` of the indexes the listing has; others answer 404. */
export class IndexStats implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #registry: IndexRegistry;
  readonly #bodies: BodyCache;

  constructor(ctx: EndpointContext, options: IndexesOptions, product: Product) {
    this.#ctx = ctx;
    this.#registry = indexRegistries(ctx, options)[product];
    this.#bodies = new BodyCache(ctx.frozen);
    this.#registry.onChange(() => this.#bodies.clear());
  }

  answer(params: RouteParams): Answer {
    const index = this.#registry.indexes.find((i) => i.id === params.id);
    if (index === undefined) return jsonAnswer(404, { error: 'index not found' });
    const body = this.#bodies.get(index.id, () =>
      statsBody(index, this.#ctx.origin, this.#ctx.now(), this.#ctx.seed),
    );
    return { status: 200, body };
  }
}

/** The path parameter `id` of `pattern`, URL-decoded; undefined when the path is not the route's. */
function idParam(pattern: RegExp, path: string): RouteParams | undefined {
  const match = pattern.exec(path);
  if (match?.[1] === undefined) return undefined;
  try {
    return { id: decodeURIComponent(match[1]) };
  } catch {
    return undefined;
  }
}

const LISTING_FRAME = ['[{"id":"x","name":"', '"}]'] as const;
const STATS_FRAME = ['{"pending_index_count":0,"padding":"', '"}'] as const;

/** Management API `GET /v2/vector/index`. */
export const vectorIndexesEndpoint = defineEndpoint({
  name: 'vector_indexes',
  credential: 'basic',
  match: (path) => (/^\/v2\/vector\/index\/?$/.test(path) ? {} : undefined),
  oversizeFrame: LISTING_FRAME,
  create: (ctx, options: IndexesOptions) => new IndexListing(ctx, options, 'vector'),
});

/** Management API `GET /v2/vector/index/{id}/stats`; the period query is ignored. */
export const vectorStatsEndpoint = defineEndpoint({
  name: 'vector_stats',
  credential: 'basic',
  match: (path) => idParam(/^\/v2\/vector\/index\/([^/]+)\/stats\/?$/, path),
  oversizeFrame: STATS_FRAME,
  create: (ctx, options: IndexesOptions) => new IndexStats(ctx, options, 'vector'),
});

/** Management API `GET /v2/search`. */
export const searchIndexesEndpoint = defineEndpoint({
  name: 'search_indexes',
  credential: 'basic',
  match: (path) => (/^\/v2\/search\/?$/.test(path) ? {} : undefined),
  oversizeFrame: LISTING_FRAME,
  create: (ctx, options: IndexesOptions) => new IndexListing(ctx, options, 'search'),
});

/** Management API `GET /v2/search/{id}/stats`; the period query is ignored. */
export const searchStatsEndpoint = defineEndpoint({
  name: 'search_stats',
  credential: 'basic',
  match: (path) => idParam(/^\/v2\/search\/([^/]+)\/stats\/?$/, path),
  oversizeFrame: STATS_FRAME,
  create: (ctx, options: IndexesOptions) => new IndexStats(ctx, options, 'search'),
});
