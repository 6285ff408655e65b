import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import { number, optional } from './tolerance.js';

/** One QStash URL group (a "topic" in the API); a figure Upstash did not send well is absent. */
export interface UrlGroup {
  readonly name: string;
  /** Unix milliseconds. */
  readonly createdAt?: number;
  /** Unix milliseconds. */
  readonly updatedAt?: number;
  readonly endpointCount?: number;
}

const endpoint = z.object({ name: z.string().optional(), url: z.string() });
// A group name is its identity: an empty one would export series without their url_group label,
// a repeated one two series under one label set.
const group = z.object({
  name: z.string().min(1),
  createdAt: optional(number),
  updatedAt: optional(number),
  // Upstash omits empty arrays: no endpoints is none.
  endpoints: optional(z.array(endpoint), []),
});

/** Parses a URL group list body; throws on any other shape. */
export function parseUrlGroups(json: unknown, url = 'topics'): Promise<Listing<UrlGroup>> {
  return parseListing(json, url, {
    entry: group,
    keyField: 'name',
    toEntry: (g) => ({
      name: g.name,
      ...(g.createdAt !== undefined && { createdAt: g.createdAt }),
      ...(g.updatedAt !== undefined && { updatedAt: g.updatedAt }),
      ...(g.endpoints !== undefined && { endpointCount: g.endpoints.length }),
    }),
  });
}

/** GET `{url}/v2/topics`: every URL group with its endpoints. */
export async function fetchUrlGroups(client: UpstashClient, target: Target): Promise<Listing<UrlGroup>> {
  const url = `${target.baseUrl}/v2/topics`;
  return parseUrlGroups(await client.getJson({ ...target, url }), url);
}
