import { pathSegment, type Target, type UpstashClient } from './client.js';
import { StatsBody } from './stats-series.js';

/** QStash stats fields that are series of `{x, y}` points; the latest point of each is kept. */
export const QSTASH_SERIES_FIELDS = ['daily_requests', 'daily_billings', 'daily_bandwidths'] as const;
/** QStash stats fields that are plain numbers. */
export const QSTASH_NUMBER_FIELDS = ['dlq_message_count', 'total_monthly_billing'] as const;
export type QstashStatsField = (typeof QSTASH_SERIES_FIELDS)[number] | (typeof QSTASH_NUMBER_FIELDS)[number];

/** One QStash instance's figures, and the known fields skipped for their wrong type. */
export interface QstashStats {
  readonly values: Partial<Record<QstashStatsField, number>>;
  readonly rejected: readonly QstashStatsField[];
}

/**
 * Parses a QStash stats body with the stats tolerance and series rules of {@link StatsBody}: a known
 * field of the wrong type is skipped alone and reported in `rejected`; only a body that is not an
 * object fails.
 */
export function parseQstashStats(json: unknown, url = 'qstash/stats', nowMs = Date.now()): QstashStats {
  const body = new StatsBody<QstashStatsField>(json, url, nowMs);
  return { values: body.values(QSTASH_SERIES_FIELDS, QSTASH_NUMBER_FIELDS), rejected: body.rejected };
}

/** Where and how to call the management API for one QStash instance. */
export type QstashStatsTarget = Target & { readonly instanceId: string };

/** GET `{url}/v2/qstash/stats/{id}` (the default period): one instance's requests, billing and DLQ. */
export async function fetchQstashStats(
  client: UpstashClient,
  target: QstashStatsTarget,
): Promise<QstashStats> {
  const url = `${target.baseUrl}/v2/qstash/stats/${pathSegment(target.instanceId)}`;
  return parseQstashStats(await client.getJson({ ...target, url }), url);
}
