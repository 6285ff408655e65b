import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { describeIssues } from './schema.js';

/** The account's global parallelism: its maximum (when set) and the messages running now. */
export interface GlobalParallelism {
  readonly max?: number;
  readonly inUse: number;
}

// Upstash omits zero values: a missing count is 0 running.
const body = z.object({ parallelismMax: z.number().optional(), parallelismCount: z.number().optional() });

/** Parses a global parallelism body (an object); throws on any other shape. */
export function parseGlobalParallelism(json: unknown, url = 'globalParallelism'): GlobalParallelism {
  const parsed = body.safeParse(json);
  if (!parsed.success) throw new InvalidResponseError('GET', url, describeIssues(parsed.error));
  const { parallelismMax, parallelismCount } = parsed.data;
  return { ...(parallelismMax !== undefined && { max: parallelismMax }), inUse: parallelismCount ?? 0 };
}

/** GET `{url}/v2/globalParallelism`: the global parallelism in use and its maximum. */
export async function fetchGlobalParallelism(
  client: UpstashClient,
  target: Target,
): Promise<GlobalParallelism> {
  const url = `${target.baseUrl}/v2/globalParallelism`;
  return parseGlobalParallelism(await client.getJson({ ...target, url }), url);
}
