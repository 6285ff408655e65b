import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import {
  INDEX_NUMBER_FIELDS,
  INDEX_SERIES_FIELDS,
  fetchIndexStats,
  type IndexStats,
  type IndexStatsField,
} from '../upstash/index-stats.js';
import type { IndexProduct } from '../upstash/indexes.js';
import { PRODUCT_TITLE } from './index-listing.js';
import { LATEST_POINT, polled, type ListedLimits, type SourceKind } from './source.js';
import type { PerOf } from '../vocabulary.js';

// Upstash states no unit for the latencies: query and update latency are exported as reported, without
// a unit suffix. Rerank and embedding latency are exported in seconds, read as milliseconds as the
// management API's other latency series are (docs/metrics.md, Vector and Search).
const AS_REPORTED = 'as reported by Upstash (unit not stated by Upstash)';
const MS = 1000;
/** The series fields read as milliseconds and exported in seconds. */
const MILLISECOND_FIELDS: ReadonlySet<IndexStatsField> = new Set([
  'rerank_latency_mean',
  'rerank_latency_99',
  'embeds_latency_mean',
  'embeds_latency_99',
]);

/** One product's stats families by Upstash field, `upstash_<product>_…`, in exposition order. */
function statsMetrics(product: IndexProduct): Record<IndexStatsField, DataMetric> {
  const title = PRODUCT_TITLE[product];
  const name = (suffix: string): string => `upstash_${product}_${suffix}`;
  const when = polled(`${product}_stats`);
  const latestPoint = polled(`${product}_stats`, LATEST_POINT);
  const number = (suffix: string, what: string): DataMetric =>
    gauge(name(suffix), `${what} of the ${title} index. ${when}`);
  const latest = (suffix: string, what: string): DataMetric =>
    gauge(name(suffix), `${what} of the ${title} index, ${AS_REPORTED}. ${latestPoint}`);
  const seconds = (suffix: string, what: string): DataMetric =>
    gauge(
      name(`${suffix}_seconds`),
      `${what} of the ${title} index (seconds; Upstash's milliseconds, a unit it does not state). ${latestPoint}`,
    );
  return {
    current_vector_count: number('vectors', 'Vectors (count)'),
    pending_index_count: number('pending_vectors', 'Vectors waiting to be indexed (count)'),
    daily_query_count: number('daily_queries', 'Queries today (count)'),
    daily_update_count: number('daily_updates', 'Updates today (count)'),
    monthly_query_count: number('monthly_queries', 'Queries this month (count)'),
    monthly_update_count: number('monthly_updates', 'Updates this month (count)'),
    monthly_bandwidth_usage: number('monthly_bandwidth_bytes', 'Bandwidth used this month (bytes)'),
    storage_usage: number('storage_bytes', 'Storage used now (bytes)'),
    monthly_cost: number('monthly_cost_dollars', 'Cost this month so far (US dollars)'),
    daily_rerank_count: number('daily_reranks', 'Rerank operations today (count)'),
    monthly_rerank_count: number('monthly_reranks', 'Rerank operations this month (count)'),
    query_latency_mean: latest('query_latency_mean', 'Mean query latency'),
    query_latency_99: latest('query_latency_p99', '99th percentile query latency'),
    update_latency_mean: latest('update_latency_mean', 'Mean update latency'),
    update_latency_99: latest('update_latency_p99', '99th percentile update latency'),
    rerank_latency_mean: seconds('rerank_latency_mean', 'Mean rerank latency'),
    rerank_latency_99: seconds('rerank_latency_p99', '99th percentile rerank latency'),
    embeds_latency_mean: seconds('embed_latency_mean', 'Mean embedding latency'),
    embeds_latency_99: seconds('embed_latency_p99', '99th percentile embedding latency'),
  };
}

const STATS_METRICS = { vector: statsMetrics('vector'), search: statsMetrics('search') };

/** The samples of one index's stats. */
export function indexStatsSamples(
  product: IndexProduct,
  account: string,
  indexId: string,
  stats: IndexStats,
): Sample[] {
  const labels = [
    ['account', account],
    ['index_id', indexId],
  ] as const;
  const samples: Sample[] = [];
  for (const field of [...INDEX_NUMBER_FIELDS, ...INDEX_SERIES_FIELDS]) {
    const value = stats.values[field];
    if (value === undefined) continue;
    const exported = MILLISECOND_FIELDS.has(field) ? value / MS : value;
    samples.push(sample(STATS_METRICS[product][field], labels, exported));
  }
  return samples;
}

/**
 * The usage a stats poll compares with the limit its listing states (docs/operations.md, The landing
 * page): above {@link QUOTA_WARNING} of it, the unit says so. Only a Search listing states
 * `max_monthly_reranks`; the other index limits have their alerts only.
 */
const QUOTAS = [
  { usage: 'monthly_rerank_count', limit: 'max_monthly_reranks', what: 'monthly reranks' },
] as const satisfies readonly { usage: IndexStatsField; limit: string; what: string }[];
/** The share of a quota past which the landing page warns, as the quota alerts fire. */
const QUOTA_WARNING = 0.8;

/** `monthly reranks at 85 % of max_monthly_reranks (850 of 1000)`, for each quota past the share. */
export function quotaWarnings(stats: IndexStats, limits: ListedLimits | undefined): string[] {
  const warnings: string[] = [];
  for (const { usage, limit, what } of QUOTAS) {
    const used = stats.values[usage];
    const max = limits?.[limit];
    // -1 is unlimited, 0 no quota to speak of.
    if (used === undefined || max === undefined || max <= 0 || used <= max * QUOTA_WARNING) continue;
    warnings.push(`${what} at ${Math.floor((used / max) * 100)} % of ${limit} (${used} of ${max})`);
  }
  return warnings;
}

/** The management API's stats of one index, once per index its listing names. */
function indexStats<const Name extends 'vector_stats' | 'search_stats'>(
  name: Name,
  product: IndexProduct,
  per: PerOf<Name>,
): SourceKind<Name> {
  return {
    name,
    per,
    metrics: Object.values(STATS_METRICS[product]),
    async poll({ client, account, unit, signal, deadline, listedLimits }) {
      const stats = await fetchIndexStats(client, { ...account, product, indexId: unit, signal, deadline });
      const warnings = quotaWarnings(stats, listedLimits);
      return {
        samples: indexStatsSamples(product, account.name, unit, stats),
        ...(stats.rejected.length > 0 && { rejectedFields: stats.rejected }),
        ...(warnings.length > 0 && { warnings }),
      };
    },
  };
}

/** `GET /v2/vector/index/{id}/stats`: usage and latency of one Vector index. */
export const vectorStats = indexStats('vector_stats', 'vector', 'vector_index');
/** `GET /v2/search/{id}/stats`: usage and latency of one Search index. */
export const searchStats = indexStats('search_stats', 'search', 'search_index');
