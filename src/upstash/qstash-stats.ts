import { pathSegment, type Target, type UpstashClient } from './client.js';
import { objectEntry, rejectField, StatsBody } from './stats-series.js';

/** QStash stats fields that are series of `{x, y}` points; the latest point of each is kept. */
export const QSTASH_SERIES_FIELDS = ['daily_requests', 'daily_billings', 'daily_bandwidths'] as const;
/** QStash stats fields that are plain numbers. */
export const QSTASH_NUMBER_FIELDS = ['dlq_message_count', 'total_monthly_billing'] as const;
/** QStash stats series of the last hour (one point a minute); the sum of their points is kept. */
export const QSTASH_SUM_FIELDS = ['daily_used', 'daily_used_workflow'] as const;
/** Figures of the latest point of `daily_requests` besides its `y`. */
export const QSTASH_DAILY_REQUESTS_EXTRA = ['workflow_run', 'workflow_message'] as const;
/** QStash stats lists of `{id, data_points}`: the sum of each id's points, by id (its state). */
export const QSTASH_STATE_FIELDS = ['daily_qstash_messages', 'daily_workflow_messages'] as const;
export type QstashStatsField =
  | (typeof QSTASH_SERIES_FIELDS)[number]
  | (typeof QSTASH_NUMBER_FIELDS)[number]
  | (typeof QSTASH_SUM_FIELDS)[number]
  | (typeof QSTASH_DAILY_REQUESTS_EXTRA)[number];
export type QstashStateField = (typeof QSTASH_STATE_FIELDS)[number];
/** What a rejected figure of `daily_requests`' latest point is called: `daily_requests.workflow_run`. */
type ExtraName = `daily_requests.${(typeof QSTASH_DAILY_REQUESTS_EXTRA)[number]}`;

/** One QStash instance's figures, and the known fields skipped for their wrong type. */
export interface QstashStats {
  readonly values: Partial<Record<QstashStatsField, number>>;
  /** The sum of each state's points, by state id as Upstash spells it; a state absent is absent. */
  readonly states: Partial<Record<QstashStateField, ReadonlyMap<string, number>>>;
  /** Upstash's names; a figure of `daily_requests`' latest point as `daily_requests.workflow_run`. */
  readonly rejected: readonly string[];
}

/**
 * Parses a QStash stats body with the stats tolerance and series rules of {@link StatsBody}: a known
 * field of the wrong type is skipped alone and reported in `rejected`; a sum adds the points the
 * latest point is chosen from; only a body that is not an object fails.
 */
export function parseQstashStats(json: unknown, url = 'qstash/stats', nowMs = Date.now()): QstashStats {
  const body = new StatsBody<QstashStatsField | QstashStateField | ExtraName>(json, url, nowMs);
  const values: Partial<Record<QstashStatsField, number>> = body.values(
    QSTASH_SERIES_FIELDS.filter((field) => field !== 'daily_requests'),
    QSTASH_NUMBER_FIELDS,
  );
  const requests = body.latestOf('daily_requests');
  if (requests !== undefined) {
    values.daily_requests = requests.y;
    for (const extra of QSTASH_DAILY_REQUESTS_EXTRA) {
      const value = body.figure(requests, extra, `daily_requests.${extra}`);
      if (value !== undefined) values[extra] = value;
    }
  }
  for (const field of QSTASH_SUM_FIELDS) {
    const sum = body.sum(field);
    if (sum !== undefined) values[field] = sum;
  }
  const states: Partial<Record<QstashStateField, ReadonlyMap<string, number>>> = {};
  for (const field of QSTASH_STATE_FIELDS) {
    const sums = body.field(field, (list) => stateSums(list, body));
    if (sums !== undefined) states[field] = sums;
  }
  return { values, states, rejected: body.rejected };
}

/**
 * The sum of each id's points of an `{id, data_points}` list; rejects the whole field when an entry
 * is malformed, or an id is empty or repeated (two values under one label set).
 */
function stateSums(list: unknown, body: StatsBody<string>): Map<string, number> {
  if (!Array.isArray(list)) rejectField();
  const sums = new Map<string, number>();
  for (const entry of list as unknown[]) {
    const { id, data_points: points } = objectEntry(entry);
    if (typeof id !== 'string' || id === '' || sums.has(id)) rejectField();
    // An id without points says nothing: no zero is made up for it.
    if (points === null || points === undefined) continue;
    sums.set(id, body.sumOf(points));
  }
  return sums;
}

/** Where and how to call the management API for one QStash instance. */
export type QstashStatsTarget = Target & { readonly instanceId: string };

/**
 * GET `{url}/v2/qstash/stats/{id}` (the default period, one hour): one instance's requests, billing,
 * DLQ and message outcomes.
 */
export async function fetchQstashStats(
  client: UpstashClient,
  target: QstashStatsTarget,
): Promise<QstashStats> {
  const url = `${target.baseUrl}/v2/qstash/stats/${pathSegment(target.instanceId)}`;
  return parseQstashStats(await client.getJson({ ...target, url }), url);
}
