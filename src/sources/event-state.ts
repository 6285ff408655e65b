// What the event rule (docs/metrics.md, Event counters) reads and keeps: the events it is handed and
// the state each (entry, source, state) keeps between polls. The state is plain data (numbers,
// strings, arrays), so that it can be kept, carried across a reload or to another thread, and
// compared in tests as it is.

/** One event as the rule sees it: when, which, and the label values it is counted under. */
export interface CountedEvent {
  /** In the rule's unit (Unix ms, or Unix seconds for the audit log). */
  readonly time: number;
  /**
   * What Upstash keys it by: the same event whatever the time it is listed at, unless the source's
   * identities hold their time (`EventRuleOptions.timedIdentity`: a log event's is its message and time).
   */
  readonly identity: string;
  /** Its label values, in the metric's label order (the same number for every event of a state). */
  readonly labels: readonly string[];
  /** What a histogram observes of it (seconds); none for a plain counter. */
  readonly value?: number;
  /**
   * A field of the event that may still change once it is counted (a failed run's failure function):
   * counted apart, once, under the event's labels followed by `labels`, when `final`; until then kept
   * pending and read again (docs/metrics.md, Event counters).
   */
  readonly outcome?: { readonly labels: readonly string[]; readonly final: boolean };
  /**
   * The ID its series' exemplar shows if it is the newest counted there (docs/metrics.md,
   * Exemplars); none: it gives no exemplar.
   */
  readonly exemplar?: string;
}

/** A series' exemplar: the newest event counted in it, kept with the counts. */
export interface SeriesExemplar {
  readonly id: string;
  /** In the rule's unit. */
  readonly time: number;
  /** The event's value (a histogram's observation), else 1. */
  readonly value: number;
}

/** Of two exemplars, the later event's (the second on a tie: the one counted last). */
export function newer(
  a: SeriesExemplar | undefined,
  b: SeriesExemplar | undefined,
): SeriesExemplar | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.time >= a.time ? b : a;
}

/** What the rule has counted under one label set. */
export interface EventSeries {
  readonly labels: readonly string[];
  readonly count: number;
  /** Sum of the values observed (0 without values). */
  readonly sum: number;
  /** Per bucket of the rule's buckets, the values ≤ its bound (not cumulative); [] without. */
  readonly buckets: readonly number[];
  /** The newest event counted that gave an exemplar; none before one. */
  readonly exemplar?: SeriesExemplar;
}

/** An identity counted, with the greatest time it was listed at: kept until W − settle passes it. */
export interface KeptEvent {
  readonly time: number;
  readonly identity: string;
}

/** An event counted whose outcome is not final yet: read again while its time is in the source's window. */
export interface PendingEvent {
  readonly time: number;
  readonly identity: string;
  /** The labels it was counted under (after the cap), the outcome's first ones. */
  readonly labels: readonly string[];
  /** The outcome's own labels as last read. */
  readonly outcome: readonly string[];
}

/** Everything one (entry, source, state) keeps between polls: small, plain, carried as it is. */
export interface EventState {
  /** W, in the rule's unit: the greatest time counted, never past a poll's start (the start before any). */
  readonly watermark: number;
  /**
   * Nothing before it is counted any more: the entry's start at first, then the least time whose
   * identities are kept, so that a reload widening the window counts nothing twice.
   */
  readonly since: number;
  /** The identities counted that a poll may read again (W − settle or later), bounded. */
  readonly kept: readonly KeptEvent[];
  /** The events counted whose outcome is not final yet, bounded as the identities are. */
  readonly pending: readonly PendingEvent[];
  /**
   * The events refused for their time that a poll may list again, so that each is refused (and
   * said) once: `identity` is the event's and the time it was listed with, `time` until when it is
   * kept; bounded as the identities are. Absent: none.
   */
  readonly refused?: readonly KeptEvent[];
  /** Seconds of windows not read because of the page cap, in all. */
  readonly unreadSeconds: number;
  /** The end of the spans said unread so far (the rule's unit): a span is said once. */
  readonly unreadUntil: number;
  /** Whether the last successful poll reached the end (or the events before W). */
  readonly complete: boolean;
  /** Counted so far, per label set in the order first seen; the all-`other` set among them when used. */
  readonly series: readonly EventSeries[];
  /** The outcomes counted so far (their labels: the event's, then the outcome's); [] without. */
  readonly outcomes: readonly EventSeries[];
}

/** The state of a (source, state) before its first poll: W is the time counting began. */
export function startState(watermark: number): EventState {
  return {
    watermark,
    since: watermark,
    kept: [],
    pending: [],
    refused: [],
    unreadSeconds: 0,
    unreadUntil: watermark,
    complete: true,
    series: [],
    outcomes: [],
  };
}

/**
 * What a budget of keys shared by several (source, state)s of an entry keeps (event-tally.ts): the
 * keys admitted under their name, and those whose fold was said. Live and shared by the polls of
 * its sources, so that two polls running at once take one decision; plain data, carried as it is.
 */
export interface KeyBudgetState {
  readonly admitted: Set<string>;
  readonly said: Set<string>;
}

/** The label value that label values beyond a cap are counted under. */
export const OTHER = 'other';

/** The histogram's cumulative bucket counts (`le` = each bound, then `+Inf` = the count). */
export function cumulativeBuckets(series: EventSeries): number[] {
  let total = 0;
  return [...series.buckets.map((n) => (total += n)), series.count];
}
