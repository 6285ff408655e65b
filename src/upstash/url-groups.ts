import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { arrayBody, assertUnique, parseEntries, parseEntriesInSlices, responseFailure } from './schema.js';

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
// A group name is its identity: an empty one would export series without their url_group label,
// a repeated one two series under one label set.
const group = z.object({
  name: z.string().min(1),
  createdAt: z.number(),
  updatedAt: z.number(),
  endpoints: z.array(endpoint),
});

/** Parses a URL group list body; throws on any other shape. */
export function parseUrlGroups(json: unknown, url = 'topics'): UrlGroup[] {
  const fail = responseFailure(url);
  return toGroups(parseEntries(arrayBody(json, fail), group, '', fail), fail);
}

/** GET `{url}/v2/topics`: every URL group with its endpoints. */
export async function fetchUrlGroups(client: UpstashClient, target: Target): Promise<UrlGroup[]> {
  const url = `${target.baseUrl}/v2/topics`;
  const json = await client.getJson({ ...target, url });
  const fail = responseFailure(url);
  return toGroups(await parseEntriesInSlices(arrayBody(json, fail), group, '', fail), fail);
}

function toGroups(groups: readonly z.output<typeof group>[], fail: (problem: string) => Error): UrlGroup[] {
  assertUnique(groups, (g) => g.name, 'name', fail);
  return groups.map((g) => ({
    name: g.name,
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
    endpointCount: g.endpoints.length,
  }));
}
