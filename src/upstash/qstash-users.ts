import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { assertUnique, parseEntries } from './schema.js';

/** The plan limits of a QStash instance the exporter exports, by Upstash field name. */
export const QSTASH_LIMIT_FIELDS = [
  'max_requests_per_day',
  'max_requests_per_second',
  'max_dlq_size',
  'max_topics',
  'max_queues',
  'max_schedules',
  'max_global_parallelism',
  'max_message_size',
  'budget',
] as const;
export type QstashLimitField = (typeof QSTASH_LIMIT_FIELDS)[number];

/**
 * One QStash instance as the management API lists it, without its credentials: the body carries
 * `token` and `read_only_token`, which are dropped at parsing and never reach this object.
 */
export interface QstashInstance {
  readonly id: string;
  readonly region: string;
  readonly type: string;
  readonly state: string;
  /** The limits that are numbers; a limit missing or of another type is absent. */
  readonly limits: Partial<Record<QstashLimitField, number>>;
  /** Limits present with a type other than number (Upstash's names), for the rejected-fields count. */
  readonly rejected: readonly QstashLimitField[];
}

// Only the fields exported are read, so the tokens are never copied out of the body. The ID is the
// instance's identity: missing, empty or repeated is a changed API, loud. The labels are strings
// or absent; a limit of the wrong type is skipped alone (and counted), as a stats field is.
const entry = z.object({
  id: z.string().min(1),
  region: z.string().optional(),
  type: z.string().optional(),
  state: z.string().optional(),
  ...(Object.fromEntries(QSTASH_LIMIT_FIELDS.map((field) => [field, z.unknown().optional()])) as Record<
    QstashLimitField,
    z.ZodOptional<z.ZodUnknown>
  >),
});

/** Parses the QStash instance listing (an array); throws on any other shape, never quoting a value. */
export function parseQstashUsers(json: unknown, url = 'qstash/users'): QstashInstance[] {
  const fail = (problem: string): Error => new InvalidResponseError('GET', url, problem);
  if (!Array.isArray(json)) throw fail('wrong shape at top level: expected an array');
  const entries = parseEntries(json, entry, '', fail);
  assertUnique(entries, (e) => e.id, 'id', fail);
  return entries.map((e) => {
    const limits: Partial<Record<QstashLimitField, number>> = {};
    const rejected: QstashLimitField[] = [];
    for (const field of QSTASH_LIMIT_FIELDS) {
      const value = e[field];
      if (typeof value === 'number') limits[field] = value;
      else if (value !== undefined && value !== null) rejected.push(field);
    }
    return { id: e.id, region: e.region ?? '', type: e.type ?? '', state: e.state ?? '', limits, rejected };
  });
}

/** GET `{url}/v2/qstash/users`: every QStash instance of the account, with its plan limits. */
export async function fetchQstashUsers(client: UpstashClient, target: Target): Promise<QstashInstance[]> {
  const url = `${target.baseUrl}/v2/qstash/users`;
  return parseQstashUsers(await client.getJson({ ...target, url }), url);
}
