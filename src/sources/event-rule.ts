// The one paging and counting rule of the event sources (docs/metrics.md, Event counters):
// `qstash_logs`, `workflow_runs` and `audit_logs` read events (a time and an identity) and turn them
// into counters that count each event once, across polls, overlapping windows, late events within the
// settle window, failed pages and reloads. Pure: it consumes parsed pages and returns the next state;
// the caller fetches the pages (and says which page was the last) and turns the state into samples.
// The state is plain data (numbers, strings, arrays), so that it can be kept, carried across a reload
// or to another thread, and compared in tests as it is.

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

/** An event counted within the settle window below W: kept so that a re-read does not count it again. */
export interface SettledEvent {
  readonly time: number;
  readonly identity: string;
}

/** Everything one (entry, source, state) keeps between polls: small, plain, carried as it is. */
export interface EventState {
  /** W, in the rule's unit: the greatest time counted (the start before any). */
  readonly watermark: number;
  /**
   * Nothing before it is counted any more: the entry's start at first, then the least time whose
   * identities are kept (W − settle after a poll), so that a reload widening the window counts
   * nothing twice.
   */
  readonly since: number;
  /** The identities of the events at exactly W already counted (only that instant's). */
  readonly atWatermark: readonly string[];
  /**
   * The events counted at W − settle or later but before W: a poll reads from W − settle, and
   * these are what it must not count again. Events fall out as W moves on, so this holds at most
   * the events of one settle window.
   */
  readonly settled: readonly SettledEvent[];
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
   * Whether pages come newest first by the event's time (QStash's logs): an event before the
   * window (W − settle) then proves that nothing after it can count, and a capped poll leaves unread only the
   * span below the oldest time read. Otherwise (workflow runs, ordered by creation but keyed on
   * completion) any page may still hold an event to count, and a capped poll leaves its whole
   * window in doubt.
   */
  readonly ordered: boolean;
  /** Histogram bucket bounds (seconds, increasing) for the events' values; none for a plain counter. */
  readonly buckets?: readonly number[];
  /**
   * How far below W a poll reads again (`limits.event_settle`, in the rule's unit; 0 when absent): an
   * event that became visible after a newer one, by at most this much, is still counted once.
   */
  readonly settle?: number;
  /**
   * The exporter's clock when the poll began, in the rule's unit. An event dated more than
   * {@link FUTURE_HORIZON_SECONDS} after it is refused; a capped unordered poll says the span from W
   * to it. Absent: no time is refused, and such a poll says the span up to the newest time read.
   */
  readonly now?: number;
  /**
   * Identities kept at most (the page cap × page size): beyond, the window's oldest are dropped and
   * nothing before the oldest kept is counted any more. Unbounded when absent.
   */
  readonly maxKept?: number;
}

/** How far ahead of the exporter's clock an event may be dated, as for stats points (seconds). */
export const FUTURE_HORIZON_SECONDS = 300;

/** The state of a (source, state) before its first poll: W is the time counting began. */
export function startState(watermark: number): EventState {
  return {
    watermark,
    since: watermark,
    atWatermark: [],
    settled: [],
    unreadSeconds: 0,
    complete: true,
    series: [],
  };
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
  /** Events refused as dated more than {@link FUTURE_HORIZON_SECONDS} ahead: not counted, W not moved. */
  readonly future: number;
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
 * per label set, the time and identity of each event counted (at most the page cap's worth), the
 * identities at the least time paged to (or, for an unordered read, the identities it read).
 */
export class EventScan {
  readonly #state: EventState;
  readonly #options: EventRuleOptions;
  readonly #atWatermark: ReadonlySet<string>;
  /** The settled events by time: looked up only for an event before W (the re-read window). */
  readonly #settled = new Map<number, string[]>();
  readonly #from: number;
  readonly #horizon: number;
  /** This poll's counted events, time and identity, for the next state's settled and W's identities. */
  readonly #countedTimes: number[] = [];
  readonly #countedIds: string[] = [];
  #future = 0;
  /** The least time this poll read (counted or not): a capped ordered poll read everything above it. */
  #leastRead: number | undefined;
  readonly #index = new Map<string, number>();
  readonly #pending = new Map<string, Pending>();
  #newSeries = 0;
  #counted = 0;
  #truncated = 0;
  #newest: number | undefined;
  /**
   * Ordered reads: the least time paged to, and the identities read at it: the first alone, a set
   * only from the second on (most instants hold one event, and a set per event was a tenth of the
   * cost of counting a window: BENCHMARKS.md, "The event window, read by hand").
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
    for (const { time, identity } of state.settled) {
      const at = this.#settled.get(time);
      if (at === undefined) this.#settled.set(time, [identity]);
      else at.push(identity);
    }
    state.series.forEach((series, at) => this.#index.set(keyOf(series.labels), at));
    // Never before counting began (no history), nor from a fraction of the unit (upstream wants an
    // integer `fromDate`; docs/metrics.md, Event counters).
    this.#from = Math.floor(Math.max(state.since, state.watermark - (options.settle ?? 0)));
    this.#horizon =
      options.now === undefined ? Infinity : options.now + FUTURE_HORIZON_SECONDS * options.perSecond;
  }

  /** W, in the rule's unit. */
  get watermark(): number {
    return this.#state.watermark;
  }

  /** The time to ask upstream for (`fromDate`, in the rule's unit) before any lookback: W − settle. */
  get from(): number {
    return this.#from;
  }

  /**
   * Takes one page, newest first. Returns false once the pages' order proves nothing after can
   * count (an event before W − settle on an ordered read): the caller stops paging, and the poll is complete.
   */
  read(events: readonly CountedEvent[]): boolean {
    const { watermark } = this.#state;
    const from = this.#from;
    for (const event of events) {
      const { time } = event;
      // A time too far ahead (a unit mistaken upstream) would move W past every event to come.
      if (time > this.#horizon) {
        this.#future++;
        continue;
      }
      // Unordered, an event before the window proves nothing and cannot count: its identity is not
      // held (the audit log's one body can hold a year of them).
      if (time < from && !this.#options.ordered) continue;
      if (this.#repeated(event)) continue;
      if (this.#leastRead === undefined || time < this.#leastRead) this.#leastRead = time;
      if (time < from) {
        this.#done = true;
        continue;
      }
      if (time <= watermark && this.#known(event)) continue;
      this.#count(event);
      this.#countedTimes.push(time);
      this.#countedIds.push(event.identity);
      if (this.#newest === undefined || time > this.#newest) this.#newest = time;
    }
    return !this.#done;
  }

  /** Whether an event at or before W was counted by an earlier poll (at W, or settled below it). */
  #known(event: CountedEvent): boolean {
    if (event.time === this.#state.watermark) return this.#atWatermark.has(event.identity);
    return this.#settled.get(event.time)?.includes(event.identity) ?? false;
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
   * a cursor (else paging stopped at the page cap). W moves to the greatest time counted (never
   * back); a capped poll adds the span it did not read to the unread seconds, even having counted
   * nothing.
   */
  finish(reachedEnd: boolean): ScanResult {
    const old = this.#state;
    const complete = reachedEnd || this.#done;
    const unread = complete ? 0 : this.#unread();
    const watermark = Math.max(old.watermark, this.#newest ?? old.watermark);
    const { atWatermark, settled, floor } = this.#kept(watermark);
    const series = old.series.map((kept) => {
      const added = this.#pending.get(keyOf(kept.labels));
      return added === undefined ? kept : merge(kept, added);
    });
    for (const [key, added] of this.#pending) if (!this.#index.has(key)) series.push(merge(undefined, added));
    return {
      state: {
        watermark,
        since: Math.max(old.since, floor),
        atWatermark,
        settled,
        unreadSeconds: old.unreadSeconds + unread,
        complete,
        series,
      },
      counted: this.#counted,
      truncated: this.#truncated,
      unreadSeconds: unread,
      future: this.#future,
    };
  }

  /**
   * The span a capped poll did not read, in seconds, said even when it counted nothing (the settle
   * window below W was read before, so it is not unread). Ordered: from W up to the least time read,
   * everything above it was read. Unordered (runs paged by creation, keyed on completion): any page
   * left may hold an event of the whole window, from W to the poll's start.
   */
  #unread(): number {
    const w = this.#state.watermark;
    const upTo = this.#options.ordered
      ? (this.#leastRead ?? this.#options.now ?? w)
      : (this.#options.now ?? this.#newest ?? w);
    return Math.max(0, upTo - w) / this.#options.perSecond;
  }

  /** The identities the next poll must not count again: at the new W, and settled below it. */
  #kept(watermark: number): {
    atWatermark: readonly string[];
    settled: readonly SettledEvent[];
    /** Nothing below it can be counted any more: its identities are not kept. */
    floor: number;
  } {
    const old = this.#state;
    const cutoff = watermark - (this.#options.settle ?? 0);
    const atWatermark = watermark === old.watermark ? [...old.atWatermark] : [];
    const settled: SettledEvent[] = [];
    for (const event of old.settled) if (event.time >= cutoff) settled.push(event);
    if (watermark !== old.watermark && old.watermark >= cutoff)
      for (const identity of old.atWatermark) settled.push({ time: old.watermark, identity });
    const times = this.#countedTimes;
    const ids = this.#countedIds;
    for (let at = 0; at < times.length; at++) {
      const time = times[at] ?? 0;
      const identity = ids[at] ?? '';
      if (time === watermark) atWatermark.push(identity);
      else if (time >= cutoff) settled.push({ time, identity });
    }
    const room = (this.#options.maxKept ?? Infinity) - atWatermark.length;
    if (settled.length <= room) return { atWatermark, settled, floor: cutoff };
    // More events in the window than a poll can read (late ones revealed poll after poll): the newest
    // are kept, with every one at the oldest instant kept, and nothing older is counted any more.
    settled.sort((a, b) => b.time - a.time);
    const least = settled[Math.max(0, room - 1)]?.time ?? watermark;
    return {
      atWatermark,
      settled: room > 0 ? settled.filter((event) => event.time >= least) : [],
      floor: room > 0 ? least : watermark,
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
