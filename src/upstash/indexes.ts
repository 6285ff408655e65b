import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import { number, optional, optionalNumbers, optionalText, presentFields } from './tolerance.js';

/** The two index products of the Developer API: their listings and stats have the same shapes. */
export const INDEX_PRODUCTS = ['vector', 'search'] as const;
export type IndexProduct = (typeof INDEX_PRODUCTS)[number];

/** The plan limits of an index the exporter exports, by Upstash field name (-1 means unlimited). */
export const INDEX_LIMIT_FIELDS = [
  'max_vector_count',
  'max_daily_queries',
  'max_daily_updates',
  'max_monthly_bandwidth',
  'max_query_per_second',
  'max_writes_per_second',
  'max_monthly_reranks',
] as const;
export type IndexLimitField = (typeof INDEX_LIMIT_FIELDS)[number];

/** The limits each product's listing documents: only a Search index has `max_monthly_reranks`. */
export const LIMIT_FIELDS_OF: Readonly<Record<IndexProduct, readonly IndexLimitField[]>> = {
  vector: INDEX_LIMIT_FIELDS.filter((field) => field !== 'max_monthly_reranks'),
  search: INDEX_LIMIT_FIELDS,
};

/**
 * One Vector or Search index as the listing describes it, without its credentials: the body carries
 * `token` and `read_only_token`, which are dropped at parsing and never reach this object.
 */
export interface UpstashIndex {
  readonly id: string;
  readonly name: string;
  /** Payment plan: `free`, `payg`, `fixed` (as Upstash says it; not checked against a list). */
  readonly type: string;
  readonly region: string;
  /** Vector only; '' when absent. */
  readonly similarityFunction: string;
  /** Vector only (`DENSE`, `SPARSE`, `HYBRID`); '' when absent. */
  readonly indexType: string;
  /** Vector only: values in one vector, as text for its label; '' when absent. */
  readonly dimensionCount: string;
  /** The limits Upstash reports; one absent, or of the wrong type, is undefined. */
  readonly limits: Readonly<Partial<Record<IndexLimitField, number>>>;
}

// z.object strips unknown keys, so `token`, `read_only_token` and every other field not named here
// never reach the parsed object (nor, through it, any log, series or error message). The ID is the
// index's identity and the name what a dashboard selects it by: missing, empty or repeated is a
// changed API, loud. Every other field follows the tolerance rule (tolerance.ts).
const entry = z.object({
  id: z.string().min(1),
  name: z.string(),
  type: optionalText,
  region: optionalText,
  similarity_function: optionalText,
  index_type: optionalText,
  dimension_count: optional(number),
  ...optionalNumbers(INDEX_LIMIT_FIELDS),
});

/** Where the listing of `product` is, under the management API's base URL. */
export function indexListingPath(product: IndexProduct): string {
  return product === 'vector' ? '/v2/vector/index' : '/v2/search';
}

/**
 * Parses an index listing body (an array), in slices so that a listing of thousands keeps scrapes
 * answered; throws on any other shape, never quoting a value.
 */
export function parseIndexes(json: unknown, url = 'indexes'): Promise<Listing<UpstashIndex>> {
  return parseListing(json, url, {
    entry,
    keyField: 'id',
    toEntry: (e) => ({
      id: e.id,
      name: e.name,
      type: e.type ?? '',
      region: e.region ?? '',
      similarityFunction: e.similarity_function ?? '',
      indexType: e.index_type ?? '',
      dimensionCount: e.dimension_count === undefined ? '' : String(e.dimension_count),
      limits: presentFields(e, INDEX_LIMIT_FIELDS),
    }),
  });
}

/** GET `{url}/v2/vector/index` or `{url}/v2/search`: every index of that product in the account. */
export async function fetchIndexes(
  client: UpstashClient,
  target: Target & { readonly product: IndexProduct },
): Promise<Listing<UpstashIndex>> {
  const url = `${target.baseUrl}${indexListingPath(target.product)}`;
  return parseIndexes(await client.getJson({ ...target, url }), url);
}
