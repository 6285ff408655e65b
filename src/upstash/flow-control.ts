import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { describeIssues } from './schema-errors.js';

/** One flow-control key and how many messages wait behind it. */
export interface FlowControlKey {
  readonly key: string;
  readonly waitListSize: number;
}

// Extra fields on entries are stripped: they are not ours to export. A missing key or size is not
// tolerated: a changed API must be loud, not half-reported.
const entry = z.object({ flowControlKey: z.string(), waitListSize: z.number() });
const body = z.union([z.object({ flowControls: z.array(entry) }), z.array(entry)]);

/** Parses a flow-control list body (documented object or bare array); throws on any other shape. */
export function parseFlowControl(json: unknown, url = 'flowControl'): FlowControlKey[] {
  return parseWellFormed(json) ?? parseFlowControlWithSchema(json, url);
}

/** {@link parseFlowControl} by the zod schema alone: the reference its fast path is tested against. */
export function parseFlowControlWithSchema(json: unknown, url = 'flowControl'): FlowControlKey[] {
  const parsed = body.safeParse(json);
  if (!parsed.success) throw new InvalidResponseError('GET', url, describeIssues(parsed.error));
  const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.flowControls;
  return entries.map((e) => ({ key: e.flowControlKey, waitListSize: e.waitListSize }));
}

/**
 * The schema above is the definition. A body of many thousand keys is common, and zod copies every
 * entry before we copy it again, so a well-formed body takes this path instead: it checks what the
 * schema checks and builds the result in one pass. It only ever accepts, giving up (undefined) at
 * the first doubt; zod then accepts or names the problem. test/upstash/flow-control-fast-path.test.ts
 * proves that whatever this accepts, the schema accepts with the same result.
 */
function parseWellFormed(json: unknown): FlowControlKey[] | undefined {
  const entries: unknown = Array.isArray(json) ? json : isObject(json) ? json.flowControls : undefined;
  if (!Array.isArray(entries)) return undefined;
  const keys = new Array<FlowControlKey>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e: unknown = entries[i];
    if (!isObject(e)) return undefined;
    const key = e.flowControlKey;
    const waitListSize = e.waitListSize;
    // z.number() refuses NaN and ±Infinity (JSON.parse gives Infinity for 1e999).
    if (typeof key !== 'string' || typeof waitListSize !== 'number' || !Number.isFinite(waitListSize))
      return undefined;
    keys[i] = { key, waitListSize };
  }
  return keys;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** GET `{url}/v2/flowControl/`: every flow-control key with its wait list size. */
export async function fetchFlowControl(client: UpstashClient, target: Target): Promise<FlowControlKey[]> {
  const url = `${target.baseUrl}/v2/flowControl/`;
  const json = await client.getJson({ ...target, api: 'qstash', url });
  return parseFlowControl(json, url);
}
