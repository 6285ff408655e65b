import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import { number, optional } from './tolerance.js';

/** One QStash queue: its backlog, consumers and state. */
export interface Queue {
  readonly name: string;
  /** Unprocessed messages; absent when Upstash sent it of the wrong type. */
  readonly lag?: number;
  /** Parallel consumers; absent when Upstash did not send it. */
  readonly parallelism?: number;
  readonly paused?: boolean;
}

// The name is the queue's identity: a missing, empty or repeated one is a changed API, loud. Upstash
// omits zero values, so a missing lag is 0 and a missing `paused` is false. Other fields are dropped.
const entry = z.object({
  name: z.string().min(1),
  lag: optional(number, 0),
  parallelism: optional(number),
  paused: optional(z.boolean(), false),
});

/** Parses a queue list body (an array); throws on any other shape. */
export function parseQueues(json: unknown, url = 'queues'): Promise<Listing<Queue>> {
  return parseListing(json, url, {
    entry,
    keyField: 'name',
    toEntry: (q) => ({
      name: q.name,
      ...(q.lag !== undefined && { lag: q.lag }),
      ...(q.parallelism !== undefined && { parallelism: q.parallelism }),
      ...(q.paused !== undefined && { paused: q.paused }),
    }),
  });
}

/** GET `{url}/v2/queues`: every queue with its lag. */
export async function fetchQueues(client: UpstashClient, target: Target): Promise<Listing<Queue>> {
  const url = `${target.baseUrl}/v2/queues`;
  return parseQueues(await client.getJson({ ...target, url }), url);
}
