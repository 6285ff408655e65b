import { z } from 'zod';
import type { UpstashClient } from './client.js';
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

/** Where and how to call QStash. */
export interface QstashTarget {
  readonly baseUrl: string;
  readonly authorization: string;
  readonly signal?: AbortSignal | undefined;
  readonly deadline?: number | undefined;
}

/** Parses a flow-control list body (documented object or bare array); throws on any other shape. */
export function parseFlowControl(json: unknown, url = 'flowControl'): FlowControlKey[] {
  const parsed = body.safeParse(json);
  if (!parsed.success) throw new InvalidResponseError('GET', url, describeIssues(parsed.error));
  const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.flowControls;
  return entries.map((e) => ({ key: e.flowControlKey, waitListSize: e.waitListSize }));
}

/** GET `{url}/v2/flowControl/`: every flow-control key with its wait list size. */
export async function fetchFlowControl(
  client: UpstashClient,
  target: QstashTarget,
): Promise<FlowControlKey[]> {
  const url = `${target.baseUrl}/v2/flowControl/`;
  const json = await client.getJson({ api: 'qstash', url, ...target });
  return parseFlowControl(json, url);
}
