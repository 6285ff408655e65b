// The one place that decides whether an event's time is a time (docs/metrics.md, Event counters):
// an event dated before 2015 (a time in seconds where milliseconds are due, a zero), negative, not a
// number, or more than five minutes ahead of the exporter's clock (a time in microseconds) is not
// counted and moves nothing, and the scan goes on past it. Anything else is a time the rule keys on.

/** How far ahead of the exporter's clock an event may be dated, as for stats points (seconds). */
export const FUTURE_HORIZON_SECONDS = 300;

/** No event of Upstash's is older than this (2015-01-01T00:00:00Z, Unix seconds). */
export const EARLIEST_SECONDS = 1_420_070_400;

/** The bounds of a plausible time, in the rule's unit. */
export interface TimeBounds {
  readonly earliest: number;
  /** The latest time accepted; Infinity without the exporter's clock. */
  readonly latest: number;
}

/** The plausible times for a rule counting `perSecond` units a second, the clock at `now` (same unit). */
export function timeBounds(perSecond: number, now: number | undefined): TimeBounds {
  return {
    earliest: EARLIEST_SECONDS * perSecond,
    latest: now === undefined ? Infinity : now + FUTURE_HORIZON_SECONDS * perSecond,
  };
}

/**
 * What `time` is within `bounds`: a time (`ok`), one dated more than the horizon `ahead`, or
 * `implausible` (before 2015, negative, NaN, not a number).
 */
export function timeVerdict(time: unknown, bounds: TimeBounds): 'ok' | 'ahead' | 'implausible' {
  if (typeof time !== 'number' || !(time >= bounds.earliest)) return 'implausible';
  return time <= bounds.latest ? 'ok' : 'ahead';
}
