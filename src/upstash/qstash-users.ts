import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import { optionalFlags, optionalNumbers, optionalText, presentFields } from './tolerance.js';

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
  'max_requests_per_day_hard',
  'max_bandwidth_per_second',
  'max_parallelism',
  'max_endpoints_per_topic',
  'max_retries',
  'max_dlq_retention_time_milis',
  'max_delay',
  'timeout',
] as const;
export type QstashLimitField = (typeof QSTASH_LIMIT_FIELDS)[number];

/** The on/off settings of a QStash instance: a boolean, or `"true"`/`"false"` as some are sent. */
export const QSTASH_FEATURE_FIELDS = ['prod_pack_enabled', 'prometheus_enabled', 'active'] as const;
export type QstashFeatureField = (typeof QSTASH_FEATURE_FIELDS)[number];

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
  /** The settings sent as a boolean or its text; one missing or of another type is absent. */
  readonly features: Partial<Record<QstashFeatureField, boolean>>;
}

// Only the fields exported are read, so the tokens are never copied out of the body. The ID is the
// instance's identity: missing, empty or repeated is a changed API, loud.
const entry = z.object({
  id: z.string().min(1),
  region: optionalText,
  type: optionalText,
  state: optionalText,
  ...optionalNumbers(QSTASH_LIMIT_FIELDS),
  ...optionalFlags(QSTASH_FEATURE_FIELDS),
});

/** Parses the QStash instance listing (an array); throws on any other shape, never quoting a value. */
export function parseQstashUsers(json: unknown, url = 'qstash/users'): Promise<Listing<QstashInstance>> {
  return parseListing(json, url, {
    entry,
    keyField: 'id',
    toEntry: (e) => ({
      id: e.id,
      region: e.region ?? '',
      type: e.type ?? '',
      state: e.state ?? '',
      limits: presentFields(e, QSTASH_LIMIT_FIELDS),
      features: presentFields(e, QSTASH_FEATURE_FIELDS),
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
