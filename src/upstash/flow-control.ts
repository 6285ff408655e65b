import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import { number, optional } from './tolerance.js';

/**
 * One flow-control key, how many messages wait behind it, and its limits. A limit is present only
 * when Upstash sent it (unset limits are omitted); a figure sent with the wrong type is absent.
 */
export interface FlowControlKey {
  readonly key: string;
  readonly waitListSize: number;
  readonly paused?: boolean;
  readonly parallelismMax?: number;
  readonly parallelismCount?: number;
  readonly rateMax?: number;
  readonly rateCount?: number;
  /** Seconds. */
  readonly ratePeriod?: number;
}

// Extra fields on entries are stripped: they are not ours to export. A missing, empty or repeated
// key, or a missing size, is not tolerated: a changed API must be loud, not half-reported (an empty
// key would export a series without its flow_control_key label). Some Upstash documents spell the
// size `waitlistSize`; it is read where `waitListSize` is absent. Upstash omits zero values: a
// missing `isPaused` is false, a missing count 0.
const entry = z
  .object({
    flowControlKey: z.string().min(1),
    waitListSize: number.optional(),
    waitlistSize: number.optional(),
    isPaused: optional(z.boolean(), false),
    parallelismMax: optional(number),
    parallelismCount: optional(number, 0),
    rateMax: optional(number),
    rateCount: optional(number, 0),
    ratePeriod: optional(number),
  })
  .refine((e) => e.waitListSize !== undefined || e.waitlistSize !== undefined, {
    message: 'expected a number',
    path: ['waitListSize'],
  });

/** Parses a flow-control list body (documented object or bare array); throws on any other shape. */
export function parseFlowControl(json: unknown, url = 'flowControl'): Promise<Listing<FlowControlKey>> {
  return parseListing(json, url, {
    entry,
    list: entryList,
    keyField: 'flowControlKey',
    toEntry: ({ flowControlKey, waitListSize, waitlistSize, isPaused, ...figures }) => {
      const key: { -readonly [K in keyof FlowControlKey]: FlowControlKey[K] } = {
        key: flowControlKey,
        waitListSize: waitListSize ?? waitlistSize ?? 0,
      };
      if (isPaused !== undefined) key.paused = isPaused;
      for (const [field, value] of Object.entries(figures) as [keyof typeof figures, number | undefined][])
        if (value !== undefined) key[field] = value;
      return key;
    },
  });
}

/** GET `{url}/v2/flowControl/`: every flow-control key with its wait list size. */
export async function fetchFlowControl(
  client: UpstashClient,
  target: Target,
): Promise<Listing<FlowControlKey>> {
  const url = `${target.baseUrl}/v2/flowControl/`;
  return parseFlowControl(await client.getJson({ ...target, url }), url);
}

/** The entries of either accepted shape, and where they are in the body (for messages). */
function entryList(json: unknown, fail: (problem: string) => Error): { list: unknown[]; at: string } {
  if (Array.isArray(json)) return { list: json, at: '' };
  if (typeof json !== 'object' || json === null)
    throw fail('wrong shape at top level: expected an object with flowControls, or an array');
  const list = (json as { flowControls?: unknown }).flowControls;
  if (!Array.isArray(list)) throw fail('wrong shape at flowControls: expected an array');
  return { list, at: 'flowControls' };
}
