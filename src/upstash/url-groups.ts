import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { parseEntries } from './schema.js';

/** One QStash URL group (a "topic" in the API). */
export interface UrlGroup {
  readonly name: string;
  /** Unix milliseconds. */
  readonly createdAt: number;
  /** Unix milliseconds. */
  readonly updatedAt: number;
  readonly endpointCount: number;
}

const endpoint = z.object({ name: z.string().optional(), url: z.string() });
const group = z.object({
  name: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  endpoints: z.array(endpoint),
});

/** Parses a URL group list body; throws on any other shape. */
export function parseUrlGroups(json: unknown, url = 'topics'): UrlGroup[] {
  const fail = (problem: string): Error => new InvalidResponseError('GET', url, problem);
  if (!Array.isArray(json)) throw fail('wrong shape at top level: expected an array');
  return parseEntries(json, group, '', fail).map((g) => ({
    name: g.name,
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
    endpointCount: g.endpoints.length,
  }));
}

/** GET `{url}/v2/topics`: every URL group with its endpoints. */
export async function fetchUrlGroups(client: UpstashClient, target: Target): Promise<UrlGroup[]> {
  const url = `${target.baseUrl}/v2/topics`;
  const json = await client.getJson({ ...target, url });
  return parseUrlGroups(json, url);
}
