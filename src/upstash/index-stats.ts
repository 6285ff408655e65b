import { pathSegment, type Target, type UpstashClient } from './client.js';
import type { IndexProduct } from './indexes.js';
import { StatsBody } from './stats-series.js';

/** Index stats fields that are plain numbers (counts, bytes, dollars). */
export const INDEX_NUMBER_FIELDS = [
  'current_vector_count',
  'pending_index_count',
  'daily_query_count',
  'daily_update_count',
  'monthly_query_count',
  'monthly_update_count',
  'monthly_bandwidth_usage',
  'storage_usage',
  'monthly_cost',
  'daily_rerank_count',
  'monthly_rerank_count',
] as const;
/** Index stats fields that are series of `{x, y}` points; the latest point of each is kept. */
export const INDEX_SERIES_FIELDS = [
  'query_latency_mean',
  'query_latency_99',
  'update_latency_mean',
  'update_latency_99',
  'rerank_latency_mean',
  'rerank_latency_99',
  'embeds_latency_mean',
  'embeds_latency_99',
] as const;
export type IndexStatsField = (typeof INDEX_NUMBER_FIELDS)[number] | (typeof INDEX_SERIES_FIELDS)[number];

/** One index's figures, and the known fields skipped for their wrong type. */
export interface IndexStats {
  readonly values: Partial<Record<IndexStatsField, number>>;
  readonly rejected: readonly IndexStatsField[];
}

/**
 * Parses a Vector or Search stats body (the Developer API's `VectorStats`, for both) with the stats
 * tolerance and series rules of {@link StatsBody}: a known field of the wrong type (a series with one
 * malformed point included) is skipped alone and reported in `rejected`; only a body that is not an
 * object fails.
 */
export function parseIndexStats(json: unknown, url = 'index stats', nowMs = Date.now()): IndexStats {
  const body = new StatsBody<IndexStatsField>(json, url, nowMs);
  return { values: body.values(INDEX_SERIES_FIELDS, INDEX_NUMBER_FIELDS), rejected: body.rejected };
}

/** Where the stats of one index of `product` are. */
export function indexStatsPath(product: IndexProduct, id: string): string {
  const segment = pathSegment(id);
  return product === 'vector' ? `/v2/vector/index/${segment}/stats` : `/v2/search/${segment}/stats`;
}

/** GET the stats of one index (no query: the default period, one hour). */
export async function fetchIndexStats(
  client: UpstashClient,
  target: Target & { readonly product: IndexProduct; readonly indexId: string },
): Promise<IndexStats> {
  const url = `${target.baseUrl}${indexStatsPath(target.product, target.indexId)}`;
  return parseIndexStats(await client.getJson({ ...target, url }), url);
}
