import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { assertUnique, parseEntries, parseEntriesInSlices, responseFailure } from './schema.js';

/**
 * One flow-control key, how many messages wait behind it, and its limits. The optional figures are
 * present only when Upstash sent them (it omits zero values and unset limits).
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

const OPTIONAL_FIGURES = [
  'parallelismMax',
  'parallelismCount',
  'rateMax',
  'rateCount',
  'ratePeriod',
] as const;

// Extra fields on entries are stripped: they are not ours to export. A missing, empty or repeated
// key, or a missing size, is not tolerated: a changed API must be loud, not half-reported (an empty
// key would export a series without its flow_control_key label). Some Upstash documents spell the
// size `waitlistSize`; it is read where `waitListSize` is absent.
const entry = z
  .object({
    flowControlKey: z.string().min(1),
    waitListSize: z.number().optional(),
    waitlistSize: z.number().optional(),
    isPaused: z.boolean().optional(),
    ...(Object.fromEntries(OPTIONAL_FIGURES.map((field) => [field, z.number().optional()])) as Record<
      (typeof OPTIONAL_FIGURES)[number],
      z.ZodOptional<z.ZodNumber>
    >),
  })
  .refine((e) => e.waitListSize !== undefined || e.waitlistSize !== undefined, {
    message: 'expected a number',
    path: ['waitListSize'],
  });

/** Parses a flow-control list body (documented object or bare array); throws on any other shape. */
export function parseFlowControl(json: unknown, url = 'flowControl'): FlowControlKey[] {
  const fail = responseFailure(url);
  const { list, at } = entryList(json, fail);
  return toKeys(parseEntries(list, entry, at, fail), fail);
}

/** GET `{url}/v2/flowControl/`: every flow-control key with its wait list size. */
export async function fetchFlowControl(client: UpstashClient, target: Target): Promise<FlowControlKey[]> {
  const url = `${target.baseUrl}/v2/flowControl/`;
  const json = await client.getJson({ ...target, url });
  const fail = responseFailure(url);
  const { list, at } = entryList(json, fail);
  return toKeys(await parseEntriesInSlices(list, entry, at, fail), fail);
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

function toKeys(
  entries: readonly z.output<typeof entry>[],
  fail: (problem: string) => Error,
): FlowControlKey[] {
  const keys = entries.map((e): FlowControlKey => {
    const key: { -readonly [K in keyof FlowControlKey]: FlowControlKey[K] } = {
      key: e.flowControlKey,
      waitListSize: e.waitListSize ?? e.waitlistSize ?? 0,
    };
    if (e.isPaused !== undefined) key.paused = e.isPaused;
    for (const field of OPTIONAL_FIGURES) {
      const value = e[field];
      if (value !== undefined) key[field] = value;
    }
    return key;
  });
  assertUnique(keys, (k) => k.key, 'flowControlKey', fail);
  return keys;
}
