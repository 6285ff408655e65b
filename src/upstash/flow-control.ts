import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { assertUnique, parseEntries } from './schema.js';

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
  const fail = (problem: string): Error => new InvalidResponseError('GET', url, problem);
  let list: unknown = json;
  let at = '';
  if (!Array.isArray(json)) {
    if (typeof json !== 'object' || json === null)
      throw fail('wrong shape at top level: expected an object with flowControls, or an array');
    list = (json as { flowControls?: unknown }).flowControls;
    at = 'flowControls';
    if (!Array.isArray(list)) throw fail('wrong shape at flowControls: expected an array');
  }
  const keys = parseEntries(list as unknown[], entry, at, fail).map((e) => ({
    key: e.flowControlKey,
    waitListSize: e.waitListSize,
  }));
  assertUnique(keys, (k) => k.key, 'flowControlKey', fail);
  return keys;
}

/** GET `{url}/v2/flowControl/`: every flow-control key with its wait list size. */
export async function fetchFlowControl(client: UpstashClient, target: Target): Promise<FlowControlKey[]> {
  const url = `${target.baseUrl}/v2/flowControl/`;
  const json = await client.getJson({ ...target, url });
  return parseFlowControl(json, url);
}
