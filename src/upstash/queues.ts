import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { arrayBody, assertUnique, parseEntries, parseEntriesInSlices, responseFailure } from './schema.js';

/** One QStash queue: its backlog, consumers and state. */
export interface Queue {
  readonly name: string;
  /** Unprocessed messages. */
  readonly lag: number;
  /** Parallel consumers; absent when Upstash did not send it. */
  readonly parallelism?: number;
  readonly paused: boolean;
}

// The name is the queue's identity: a missing, empty or repeated one is a changed API, loud. Upstash
// omits zero values, so a missing lag is 0 and a missing `paused` is false. Other fields are dropped.
const entry = z.object({
  name: z.string().min(1),
  lag: z.number().optional(),
  parallelism: z.number().optional(),
  paused: z.boolean().optional(),
});

/** Parses a queue list body (an array); throws on any other shape. */
export function parseQueues(json: unknown, url = 'queues'): Queue[] {
  const fail = responseFailure(url);
  return toQueues(parseEntries(arrayBody(json, fail), entry, '', fail), fail);
}

/** GET `{url}/v2/queues`: every queue with its lag. */
export async function fetchQueues(client: UpstashClient, target: Target): Promise<Queue[]> {
  const url = `${target.baseUrl}/v2/queues`;
  const json = await client.getJson({ ...target, url });
  const fail = responseFailure(url);
  return toQueues(await parseEntriesInSlices(arrayBody(json, fail), entry, '', fail), fail);
}

function toQueues(entries: readonly z.output<typeof entry>[], fail: (problem: string) => Error): Queue[] {
  assertUnique(entries, (q) => q.name, 'name', fail);
  return entries.map((q) => ({
    name: q.name,
    lag: q.lag ?? 0,
    ...(q.parallelism !== undefined && { parallelism: q.parallelism }),
    paused: q.paused ?? false,
  }));
}
