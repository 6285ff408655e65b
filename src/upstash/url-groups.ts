import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { assertUnique, parseEntries, parseEntriesInSlices } from './schema.js';

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
  const fail = failure(url);
  return toGroups(parseEntries(groupList(json, fail), group, '', fail), fail);
}

/** GET `{url}/v2/topics`: every URL group with its endpoints. */
export async function fetchUrlGroups(client: UpstashClient, target: Target): Promise<UrlGroup[]> {
  const url = `${target.baseUrl}/v2/topics`;
  const json = await client.getJson({ ...target, url });
  const fail = failure(url);
  return toGroups(await parseEntriesInSlices(groupList(json, fail), group, '', fail), fail);
}

function failure(url: string): (problem: string) => Error {
  return (problem) => new InvalidResponseError('GET', url, problem);
}

function groupList(json: unknown, fail: (problem: string) => Error): unknown[] {
  if (!Array.isArray(json)) throw fail('wrong shape at top level: expected an array');
  return json;
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
