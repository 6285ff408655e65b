import { pathSegment, type Target, type UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { parseGoTimeNs } from './go-time.js';

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

/** Points dated further than this after our clock are padding (the rest of the month), not data. */
const FUTURE_SLACK_NS = 5n * 60n * 1_000_000_000n;

/**
 * Parses a QStash stats body with the stats tolerance: a known field of the wrong type (a series with
 * one malformed point included) is skipped alone and reported in `rejected`; points dated more than
 * five minutes after `nowMs` and points with a null `y` are skipped; the latest point is the one
 * with the greatest `x`. Only a body that is not an object fails.
 */
export function parseQstashStats(json: unknown, url = 'qstash/stats', nowMs = Date.now()): QstashStats {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new InvalidResponseError('GET', url, 'wrong shape at top level: expected an object');
  const body = json as Record<string, unknown>;
  const values: Partial<Record<QstashStatsField, number>> = {};
  const rejected: QstashStatsField[] = [];
  const horizon = futureHorizon(nowMs);
  for (const field of QSTASH_SERIES_FIELDS) {
    const points = body[field];
    if (points === null || points === undefined) continue;
    const latest = latestPoint(points, horizon);
    if (latest === 'malformed') rejected.push(field);
    else if (latest !== undefined) values[field] = latest;
  }
  for (const field of QSTASH_NUMBER_FIELDS) {
    const value = body[field];
    if (value === null || value === undefined) continue;
    if (typeof value === 'number') values[field] = value;
    else rejected.push(field);
  }
  return { values, rejected };
}

/** Unix ns after which a point is padding rather than data: five minutes after `nowMs`. */
export function futureHorizon(nowMs: number): bigint {
  return BigInt(Math.floor(nowMs)) * 1_000_000n + FUTURE_SLACK_NS;
}

/**
 * The `y` of the latest usable point (the greatest `x` up to `horizon`, null `y` skipped), undefined
 * when there is none, `malformed` for a bad series. Shared by every stats parser but Redis's.
 */
export function latestPoint(points: unknown, horizon: bigint): number | undefined | 'malformed' {
  if (!Array.isArray(points)) return 'malformed';
  let latest: { at: bigint; y: number } | undefined;
  for (const p of points as unknown[]) {
    if (typeof p !== 'object' || p === null) return 'malformed';
    const { x, y } = p as { x?: unknown; y?: unknown };
    if (typeof x !== 'string') return 'malformed';
    const at = parseGoTimeNs(x);
    if (at === undefined) return 'malformed';
    if (y === null) continue;
    if (typeof y !== 'number') return 'malformed';
    if (at > horizon) continue;
    if (latest === undefined || at > latest.at) latest = { at, y };
  }
  return latest?.y;
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
