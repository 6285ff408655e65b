import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import {
  LIMIT_FIELDS_OF,
  fetchIndexes,
  type IndexLimitField,
  type IndexProduct,
  type UpstashIndex,
} from '../upstash/indexes.js';
import { polled, type SourceKind } from './source.js';
import type { ListsOf } from '../vocabulary.js';

/** How HELP names each product. */
export const PRODUCT_TITLE: Record<IndexProduct, string> = { vector: 'Vector', search: 'Search' };

const UNLIMITED = '-1 means unlimited';

/** The families of one product's listing, `upstash_<product>_…`. */
function listingMetrics(product: IndexProduct) {
  const title = PRODUCT_TITLE[product];
  const name = (suffix: string): string => `upstash_${product}_${suffix}`;
  const when = polled(`${product}_indexes`);
  const all: Record<IndexLimitField, DataMetric> = {
    max_vector_count: gauge(name('max_vectors'), `Vectors the ${title} index may hold (count). ${when}`),
    max_daily_queries: gauge(
      name('max_daily_queries'),
      `Queries the ${title} index allows per day (count; ${UNLIMITED}). ${when}`,
    ),
    max_daily_updates: gauge(
      name('max_daily_updates'),
      `Updates the ${title} index allows per day (count; ${UNLIMITED}). ${when}`,
    ),
    max_monthly_bandwidth: gauge(
      name('max_monthly_bandwidth_bytes'),
      `Bandwidth the ${title} index allows per month (bytes; ${UNLIMITED}). ${when}`,
    ),
    max_query_per_second: gauge(
      name('max_queries_per_second'),
      `Queries per second the ${title} index allows (queries per second). ${when}`,
    ),
    max_writes_per_second: gauge(
      name('max_writes_per_second'),
      `Writes per second the ${title} index allows (writes per second). ${when}`,
    ),
    max_monthly_reranks: gauge(
      name('max_monthly_reranks'),
      `Rerank operations the ${title} index allows per month (count; ${UNLIMITED}). ${when}`,
    ),
  };
  // Only the limits the product's listing documents have a family (a Vector index has no rerank quota).
  const limits = new Map(LIMIT_FIELDS_OF[product].map((field) => [field, all[field]]));
  return {
    indexes: gauge(
      name('indexes'),
      `${title} indexes the account lists, also those over max_indexes (count). ${when}`,
    ),
    omitted: gauge(
      name('indexes_omitted'),
      `${title} indexes not polled because of max_indexes, the first by name kept (count). ${when}`,
    ),
    info: gauge(
      name('index_info'),
      `A polled ${title} index: its name, plan type and region${product === 'vector' ? ', similarity function, index type and dimension count' : ''} (always 1). ${when}`,
    ),
    limits,
  };
}

const LISTING_METRICS = { vector: listingMetrics('vector'), search: listingMetrics('search') };

/** The indexes polled: at most `max`, the first by name (then ID), so the cut is stable. */
export function keptIndexes(all: readonly UpstashIndex[], max: number): UpstashIndex[] {
  const sorted = [...all].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  return sorted.slice(0, max);
}

/** The samples of one listing: the counts, and the info and limits of the kept indexes. */
export function indexListingSamples(
  product: IndexProduct,
  account: string,
  all: readonly UpstashIndex[],
  kept: readonly UpstashIndex[],
): Sample[] {
  const metrics = LISTING_METRICS[product];
  const samples: Sample[] = [
    sample(metrics.indexes, [['account', account]], all.length),
    sample(metrics.omitted, [['account', account]], all.length - kept.length),
  ];
  for (const index of kept) {
    const labels = [
      ['account', account],
      ['index_id', index.id],
    ] as const;
    const vectorLabels =
      product === 'vector'
        ? ([
            ['similarity_function', index.similarityFunction],
            ['index_type', index.indexType],
            ['dimension_count', index.dimensionCount],
          ] as const)
        : [];
    samples.push(
      sample(
        metrics.info,
        [
          ...labels,
          ['index_name', index.name],
          ['type', index.type],
          ['region', index.region],
          ...vectorLabels,
        ],
        1,
      ),
    );
    for (const [field, metric] of metrics.limits) {
      const value = index.limits[field];
      if (value !== undefined) samples.push(sample(metric, labels, value));
    }
  }
  return samples;
}

/**
 * The management API's listing of one product's indexes, once per account: their plans and limits,
 * and the IDs its stats source polls (at most `limits.max_indexes`). The listing's tokens are
 * dropped at parsing.
 */
function indexListing<const Name extends 'vector_indexes' | 'search_indexes'>(
  name: Name,
  product: IndexProduct,
  lists: ListsOf<Name>,
): SourceKind<Name> {
  const metrics = LISTING_METRICS[product];
  return {
    name,
    per: 'account',
    lists,
    metrics: [metrics.indexes, metrics.omitted, metrics.info, ...metrics.limits.values()],
    async poll({ client, account, limits, signal, deadline }) {
      const { entries: all, rejected } = await fetchIndexes(client, {
        ...account,
        product,
        signal,
        deadline,
      });
      const kept = keptIndexes(all, limits.maxIndexes);
      return {
        samples: indexListingSamples(product, account.name, all, kept),
        rejectedFields: rejected,
        discovered: {
          unit: lists,
          ids: kept.map((index) => index.id),
          names: new Map(kept.map((index) => [index.id, index.name])),
          limits: new Map(kept.map((index) => [index.id, index.limits])),
        },
      };
    },
  };
}

/** `GET /v2/vector/index`: the account's Vector indexes. */
export const vectorIndexes = indexListing('vector_indexes', 'vector', 'vector_index');
/** `GET /v2/search`: the account's Search indexes. */
export const searchIndexes = indexListing('search_indexes', 'search', 'search_index');
