// The one paging and counting rule of the event sources (contract 10.1): `qstash_logs`,
// `workflow_runs` and `audit_logs` read events (a time and an identity) and turn them into counters
// that count each event once, across polls, overlapping windows, events at exactly the watermark,
// failed pages and reloads. Pure: it consumes parsed pages and returns the next state; the caller
// fetches the pages (and says which page was the last) and turns the state into samples. The state
// is plain data (numbers, strings, arrays), so that it can be kept, carried across a reload or to
// another thread, and compared in tests as it is.

/** One event as the rule sees it: when, which, and the label values it is counted under. */
export interface CountedEvent {
  /** In the rule's unit (Unix ms, or Unix seconds for the audit log). */
  readonly time: number;
  /**
   * What recognises it at the watermark. Unique among the events of one (source, state) at one
   * instant for an ordered read (every identity it compares is of one instant: W, the newest time
   * read, the least time paged to); among all of them for an unordered one.
   */
  readonly identity: string;
  /** Its label values, in the metric's label order (the same number for every event of a state). */
  readonly labels: readonly string[];
  /** What a histogram observes of it (seconds); none for a plain counter. */
  readonly value?: number;
}

/** What the rule has counted under one label set. */
export interface EventSeries {
  readonly labels: readonly string[];
  readonly count: number;
  /** Sum of the values observed (0 without values). */
  readonly sum: number;
  /** Per bucket of {@link EventRuleOptions.buckets}, the values ≤ its bound (not cumulative); [] without. */
  readonly buckets: readonly number[];
}

/** Everything one (entry, source, state) keeps between polls: small, plain, carried as it is. */
export interface EventState {
  /** W, in the rule's unit: events before it are not counted. */
  readonly watermark: number;
  /** The identities of the events at exactly W already counted (only that instant's). */
  readonly atWatermark: readonly string[];
  /** Seconds of windows not read because of the page cap, in all. */
  readonly unreadSeconds: number;
  /** Whether the last successful poll reached the end (or the events before W). */
  readonly complete: boolean;
  /** Counted so far, per label set in the order first seen; the all-`other` set among them when used. */
  readonly series: readonly EventSeries[];
}

/** How a (source, state) reads its events. */
export interface EventRuleOptions {
  /** Time units per second: 1000 for Unix ms, 1 for Unix seconds. */
  readonly perSecond: number;
  /**
   * Label sets kept at most (the all-`other` set not included); a new one beyond goes to the
   * all-`other` set, and each such event is counted as truncated. Sets already counted stay.
   */
  readonly maxSeries: number;
  /**
   * Whether pages come newest first by the event's time (QStash's logs, the audit log): an event
   * before W then proves that nothing after it can count, and a capped poll leaves unread only the
   * span below the oldest time read. Otherwise (workflow runs, ordered by creation but keyed on
   * completion) any page may still hold an event to count, and a capped poll leaves its whole
   * window in doubt.
   */
  readonly ordered: boolean;
  /** Histogram bucket bounds (seconds, increasing) for the events' values; none for a plain counter. */
  readonly buckets?: readonly number[];
}

/** The state of a (source, state) before its first poll: W is the time the process started. */
export function startState(watermark: number): EventState {
  return { watermark, atWatermark: [], unreadSeconds: 0, complete: true, series: [] };
}

/** The label value of every label of the set that new label sets beyond the cap are counted under. */
export const OTHER = 'other';

/** What a finished poll brought: the state to keep, and what to report of this poll. */
export interface ScanResult {
  readonly state: EventState;
  /** Events counted by this poll. */
  readonly counted: number;
  /** Of those, events counted under the all-`other` set because of the cap. */
  readonly truncated: number;
  /** Seconds of this poll's window left unread (0 when it was complete). */
  readonly unreadSeconds: number;
}

interface Pending {
  labels: readonly string[];
  count: number;
  sum: number;
  buckets: number[];
}

/**
 * One poll of one (source, state), page by page. Nothing it reads changes the state it started
 * from: {@link finish} returns the next state, and a poll that fails is simply dropped, leaving W
 * and the counters where they were (the next poll reads the same window again). Memory: the counts
 * per label set, the identities at the greatest time read and at the least time paged to (or, for
 * an unordered read, the identities it read: at most the page cap's worth).
 */
export class EventScan {
  readonly #state: EventState;
  readonly #options: EventRuleOptions;
  readonly #atWatermark: ReadonlySet<string>;
  readonly #index = new Map<string, number>();
  readonly #pending = new Map<string, Pending>();
  #newSeries = 0;
  #counted = 0;
  #truncated = 0;
  #newest: number | undefined;
  #atNewest = new Set<string>();
  #oldest: number | undefined;
  /**
   * Ordered reads: the least time paged to, and the identities read at it: the first alone, a set
   * only from the second on (most instants hold one event, and a set per event was a tenth of the
   * cost of counting a window: issue 30).
   */
  #reached: number | undefined;
  #firstAtReached = '';
  #moreAtReached: Set<string> | undefined;
  /** Unordered reads: every identity read by this poll (at most the page cap's worth). */
  readonly #read = new Set<string>();
  #done = false;

  constructor(state: EventState, options: EventRuleOptions) {
    this.#state = state;
    this.#options = options;
    this.#atWatermark = new Set(state.atWatermark);
    state.series.forEach((series, at) => this.#index.set(keyOf(series.labels), at));
  }

  /** The time to ask upstream for (`fromDate`, in the rule's unit) before any lookback. */
  get watermark(): number {
    return this.#state.watermark;
  }

  /**
   * Takes one page, newest first. Returns false once the pages' order proves nothing after can
   * count (an event before W on an ordered read): the caller stops paging, and the poll is complete.
   */
  read(events: readonly CountedEvent[]): boolean {
    const { watermark } = this.#state;
    for (const event of events) {
      if (this.#repeated(event)) continue;
      if (event.time < watermark) {
        if (this.#options.ordered) this.#done = true;
        continue;
      }
      if (event.time === watermark && this.#atWatermark.has(event.identity)) continue;
      this.#count(event);
      if (this.#newest === undefined || event.time > this.#newest) {
        this.#newest = event.time;
        this.#atNewest = new Set();
      }
      if (event.time === this.#newest) this.#atNewest.add(event.identity);
      if (this.#oldest === undefined || event.time < this.#oldest) this.#oldest = event.time;
    }
    return !this.#done;
  }

  /**
   * Whether this poll has read the event already: offset paging repeats the tail of a page when
   * events arrive meanwhile. Newest first by time, an event newer than the least time paged to was
   * on an earlier page (an arrival goes on top, not below), so only the identities at that one
   * instant are kept; an unordered read keeps what it read (bounded by the page cap).
   */
  #repeated(event: CountedEvent): boolean {
    if (!this.#options.ordered) {
      if (this.#read.has(event.identity)) return true;
      this.#read.add(event.identity);
      return false;
    }
    if (this.#reached !== undefined && event.time > this.#reached) return true;
    if (this.#reached === event.time) {
      if (event.identity === this.#firstAtReached || this.#moreAtReached?.has(event.identity)) return true;
      (this.#moreAtReached ??= new Set()).add(event.identity);
    } else {
      this.#reached = event.time;
      this.#firstAtReached = event.identity;
      this.#moreAtReached = undefined;
    }
    return false;
  }

  /**
   * Ends a poll that read every page it could: `reachedEnd` says whether the last page came without
   * a cursor (else paging stopped at the page cap). W moves to the greatest time read; a capped
   * poll adds the span it did not read to the unread seconds.
   */
  finish(reachedEnd: boolean): ScanResult {
    const old = this.#state;
    const complete = reachedEnd || this.#done;
    let unread = 0;
    if (!complete && this.#newest !== undefined && this.#oldest !== undefined) {
      const below = this.#options.ordered ? this.#oldest : this.#newest;
      unread = (below - old.watermark) / this.#options.perSecond;
    }
    let watermark = old.watermark;
    let atWatermark = old.atWatermark;
    if (this.#newest !== undefined) {
      watermark = this.#newest;
      atWatermark =
        this.#newest === old.watermark ? [...old.atWatermark, ...this.#atNewest] : [...this.#atNewest];
    }
    const series = old.series.map((kept) => {
      const added = this.#pending.get(keyOf(kept.labels));
      return added === undefined ? kept : merge(kept, added);
    });
    for (const [key, added] of this.#pending) if (!this.#index.has(key)) series.push(merge(undefined, added));
    return {
      state: { watermark, atWatermark, unreadSeconds: old.unreadSeconds + unread, complete, series },
      counted: this.#counted,
      truncated: this.#truncated,
      unreadSeconds: unread,
    };
  }

  #count(event: CountedEvent): void {
    let key = keyOf(event.labels);
    // A label set this poll counted already (most events) costs one lookup.
    let pending = this.#pending.get(key);
    if (pending === undefined) {
      let labels = event.labels;
      if (!this.#index.has(key) && !isOther(labels)) {
        const held = this.#state.series.filter((s) => !isOther(s.labels)).length + this.#newSeries;
        if (held >= this.#options.maxSeries) {
          labels = labels.map(() => OTHER);
          key = keyOf(labels);
          pending = this.#pending.get(key);
          this.#truncated++;
        } else {
          this.#newSeries++;
        }
      }
      if (pending === undefined) {
        pending = { labels, count: 0, sum: 0, buckets: (this.#options.buckets ?? []).map(() => 0) };
        this.#pending.set(key, pending);
      }
    }
    pending.count++;
    this.#counted++;
    const { value } = event;
    const bounds = this.#options.buckets;
    if (value !== undefined && bounds !== undefined) {
      pending.sum += value;
      const at = bounds.findIndex((bound) => value <= bound);
      if (at >= 0) pending.buckets[at] = (pending.buckets[at] ?? 0) + 1;
    }
  }
}

/** Whether a label set is the all-`other` one. */
function isOther(labels: readonly string[]): boolean {
  return labels.length > 0 && labels.every((value) => value === OTHER);
}

function keyOf(labels: readonly string[]): string {
  return labels.join('\u0000');
}

function merge(kept: EventSeries | undefined, added: Pending): EventSeries {
  return {
    labels: kept?.labels ?? added.labels,
    count: (kept?.count ?? 0) + added.count,
    sum: (kept?.sum ?? 0) + added.sum,
    buckets: added.buckets.map((n, at) => n + (kept?.buckets[at] ?? 0)),
  };
}

/** The histogram's cumulative bucket counts (`le` = each bound, then `+Inf` = the count). */
export function cumulativeBuckets(series: EventSeries): number[] {
  let total = 0;
  return [...series.buckets.map((n) => (total += n)), series.count];
}
