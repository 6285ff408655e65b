import { listingBody } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import { formatGoTime } from './go-time.js';
import type { DemoIndex, IndexProduct } from './indexes.js';
import { hashString } from './noise.js';

/**
 * The fake tokens the listing gives an index: distinctive markers, so that a test can prove they
 * never reach a log, a series, a page or an error message.
 */
export function demoIndexToken(id: string, readOnly = false): string {
  return `SIMULATED-INDEX-${readOnly ? 'READONLY-' : ''}TOKEN-${id}`;
}

/** The listing entry of one index: every field of the OpenAPI's `VectorIndex` or `SearchIndex`. */
function listingEntry(product: IndexProduct, index: DemoIndex, origin: number): Record<string, unknown> {
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
    return {
      ...common,
      vercel_email: '',
      max_monthly_reranks: index.maxMonthlyReranks ?? -1,
      input_enrichment_enabled: false,
    };
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

/**
 * Management API `GET {path}`, the listing of `product`'s indexes: every one its registry lists now,
 * with its plan, limits and (fake) tokens.
 */
function indexListingEndpoint<const Name extends string>(name: Name, product: IndexProduct, path: string) {
  return defineEndpoint({
    name,
    credential: 'basic',
    path,
    oversizeFrame: ['[{"id":"x","name":"', '"}]'],
    create: (ctx) =>
      listingBody(ctx, ctx.registries.indexes[product], (index) => listingEntry(product, index, ctx.origin)),
  });
}

/** Management API `GET /v2/vector/index`. */
export const vectorIndexesEndpoint = indexListingEndpoint('vector_indexes', 'vector', '/v2/vector/index');
/** Management API `GET /v2/search`. */
export const searchIndexesEndpoint = indexListingEndpoint('search_indexes', 'search', '/v2/search');
