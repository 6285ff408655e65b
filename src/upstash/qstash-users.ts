import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import { optional, optionalNumbers, presentFields } from './tolerance.js';

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
  /** The limits Upstash sent as numbers; one missing or of another type is absent. */
  readonly limits: Partial<Record<QstashLimitField, number>>;
}

const text = optional(z.string());

// Only the fields exported are read, so the tokens are never copied out of the body. The ID is the
// instance's identity: missing, empty or repeated is a changed API, loud.
const entry = z.object({
  id: z.string().min(1),
  region: text,
  type: text,
  state: text,
  ...optionalNumbers(QSTASH_LIMIT_FIELDS),
});

/** Parses the QStash instance listing (an array); throws on any other shape, never quoting a value. */
export function parseQstashUsers(json: unknown, url = 'qstash/users'): Promise<Listing<QstashInstance>> {
  return parseListing(json, url, {
    entry,
    keyField: 'id',
    key: (e) => e.id,
    toEntry: (e) => ({
      id: e.id,
      region: e.region ?? '',
      type: e.type ?? '',
      state: e.state ?? '',
      limits: presentFields(e, QSTASH_LIMIT_FIELDS),
    }),
  });
}

/** GET `{url}/v2/qstash/users`: every QStash instance of the account, with its plan limits. */
export async function fetchQstashUsers(
  client: UpstashClient,
  target: Target,
): Promise<Listing<QstashInstance>> {
  const url = `${target.baseUrl}/v2/qstash/users`;
  return parseQstashUsers(await client.getJson({ ...target, url }), url);
}
