import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { assertUnique, parseEntries, parseEntriesInSlices } from './schema.js';

/** One flow-control key and how many messages wait behind it. */
export interface FlowControlKey {
  readonly key: string;
  readonly waitListSize: number;
}

// Extra fields on entries are stripped: they are not ours to export. A missing, empty or repeated
// key, or a missing size, is not tolerated: a changed API must be loud, not half-reported (an empty
// key would export a series without its flow_control_key label).
const entry = z.object({ flowControlKey: z.string().min(1), waitListSize: z.number() });

/** Parses a flow-control list body (documented object or bare array); throws on any other shape. */
export function parseFlowControl(json: unknown, url = 'flowControl'): FlowControlKey[] {
  const fail = failure(url);
  const { list, at } = entryList(json, fail);
  return toKeys(parseEntries(list, entry, at, fail), fail);
}

/** GET `{url}/v2/flowControl/`: every flow-control key with its wait list size. */
export async function fetchFlowControl(client: UpstashClient, target: Target): Promise<FlowControlKey[]> {
  const url = `${target.baseUrl}/v2/flowControl/`;
  const json = await client.getJson({ ...target, url });
  const fail = failure(url);
  const { list, at } = entryList(json, fail);
  return toKeys(await parseEntriesInSlices(list, entry, at, fail), fail);
}

function failure(url: string): (problem: string) => Error {
  return (problem) => new InvalidResponseError('GET', url, problem);
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
  const keys = entries.map((e) => ({ key: e.flowControlKey, waitListSize: e.waitListSize }));
  assertUnique(keys, (k) => k.key, 'flowControlKey', fail);
  return keys;
}
