// The one place that accounts the spans a poll did not read (docs/metrics.md, Event counters): a poll
// stopped by the page cap says the span it left unread, once: from W, or from the end of what was
// said before if that is later, up to what it read (never past the poll's start). A second capped
// poll with W unchanged says only the seconds since the first, so `…_unread_seconds_total` never
// grows faster than the clock.

/** What a capped poll says unread. */
export interface Unread {
  /** Seconds newly said unread. */
  readonly seconds: number;
  /** The end of the spans said unread, now (the rule's unit). */
  readonly until: number;
}

/**
 * The span a capped poll did not read: from `watermark` (or `said`, the end of the spans said
 * before) up to `upTo`, never past `now` when the clock is known; in seconds of `perSecond` units.
 */
export function unreadSpan(
  watermark: number,
  said: number,
  upTo: number,
  now: number | undefined,
  perSecond: number,
): Unread {
  const end = now === undefined ? upTo : Math.min(upTo, now);
  const start = Math.max(watermark, said);
  return { seconds: Math.max(0, end - start) / perSecond, until: Math.max(said, end) };
}
