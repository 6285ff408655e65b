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
  /** Search only: `max_monthly_reranks` (-1 unlimited, the default). */
  readonly maxMonthlyReranks?: number;
  /** Rerank operations a day (0 when absent: the index does not rerank). */
  readonly reranksPerDay?: number;
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
    reranksPerDay: 1_200,
    similarityFunction: 'DOT_PRODUCT',
    indexType: 'HYBRID',
    dimensionCount: 1024,
  },
];

/**
 * The Search indexes listed by default: one without limits, and a free one near its bandwidth cap and
 * its monthly rerank quota.
 */
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
    reranksPerDay: 3_000,
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
    // Reranks past 80 % of the month's quota by its first day: the rerank quota's warning and alert.
    maxMonthlyReranks: 1_000,
    reranksPerDay: 30,
  },
];

/** Options of the simulated Vector and Search endpoints (the listings and each index's stats). */
export interface IndexesOptions {
  /** The Vector indexes the account has; default {@link DEMO_VECTOR_INDEXES}. */
  vectorIndexes?: readonly DemoIndex[];
  /** The Search indexes the account has; default {@link DEMO_SEARCH_INDEXES}. */
  searchIndexes?: readonly DemoIndex[];
}

/** The two index products: their listings and stats have the same shapes. */
export type IndexProduct = 'vector' | 'search';
