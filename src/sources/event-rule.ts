import { KeptIdentities, PendingOutcomes, RefusedTimes } from './event-identity.js';
import type { CountedEvent, EventState, SeriesExemplar } from './event-state.js';
import { Tally, type KeyBudget } from './event-tally.js';
import { timeBounds, timeVerdict, type TimeBounds } from './event-time.js';
import { unreadSpan } from './event-unread.js';

// The one paging and counting rule of the event sources (docs/metrics.md, Event counters): the scan
// of one poll of one (source, state), built of the rule's invariants, each decided in one place:
// which events were counted (event-identity.ts, by identity), which times are times
// (event-time.ts), which spans were said unread (event-unread.ts), and the cap on label sets
// (event-tally.ts). Pure: it consumes parsed pages and returns the next state; the caller fetches
// the pages (and says which page was the last) and turns the state into samples.

export {
  cumulativeBuckets,
  newer,
  OTHER,
  startState,
  type CountedEvent,
  type EventSeries,
  type EventState,
  type KeptEvent,
  type KeyBudgetState,
  type PendingEvent,
  type SeriesExemplar,
} from './event-state.js';
export { KeyBudget } from './event-tally.js';
export { EARLIEST_SECONDS, FUTURE_HORIZON_SECONDS } from './event-time.js';

/** How a (source, state) reads its events. */
export interface EventRuleOptions {
  /** Time units per second: 1000 for Unix ms, 1 for Unix seconds. */
  readonly perSecond: number;
  /**
   * Label sets kept at most (the all-`other` set not included); a new one beyond is folded into
   * `other`, and each such event is counted as truncated. Sets already counted stay.
   */
  readonly maxSeries: number;
  /**
   * Whether pages come newest first by the event's time (QStash's logs): a page whose events all lie
   * before the window (W − settle) then proves that nothing after it can count, and a capped poll
   * leaves unread only the span below the oldest time read. Otherwise (workflow runs, ordered by
   * creation but keyed on completion) any page may still hold an event to count, and a capped poll
   * leaves its whole window in doubt.
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
   * The exporter's clock when the poll began, in the rule's unit: W never passes it, an event dated
   * more than five minutes after it is refused, and no span after it is said unread. Absent: no time
   * is refused for being ahead, and W follows the events.
   */
  readonly now?: number;
  /**
   * Identities kept at most (the page cap × page size): beyond, the window's oldest are dropped and
   * nothing before the oldest kept is counted any more; pending outcomes are bounded alike.
   * Unbounded when absent.
   */
  readonly maxKept?: number;
  /** Whether an identity is one event only at one time (a log event: its message and time). */
  readonly timedIdentity?: boolean;
  /** The budget of the first label, shared with the other family of a ratio (event-tally.ts). */
  readonly keys?: KeyBudget;
  /**
   * How far below the window the source reads (`workflow_lookback`, the rule's unit; 0 when absent):
   * an event whose outcome is pending is read again while its time is within it.
   */
  readonly pendingWindow?: number;
}

/** What a finished poll brought: the state to keep, and what to report of this poll. */
export interface ScanResult {
  readonly state: EventState;
  /** Events counted by this poll. */
  readonly counted: number;
  /** Of those, events counted under folded labels because of the cap. */
  readonly truncated: number;
  /** What the cap folded: a key refused (`key\0<key>`, the first time its budget said it), or a label set beyond the cap. */
  readonly folded: ReadonlySet<string>;
  /** Outcomes counted by this poll (final, or leaving the window unfinished). */
  readonly outcomes: number;
  /** Seconds newly said unread by this poll (0 when it was complete). */
  readonly unreadSeconds: number;
  /** Events refused as dated more than five minutes ahead, not refused before: not counted, nothing moved. */
  readonly future: number;
  /** Events refused for a time that is no time (before 2015, negative, not a number), not before: likewise. */
  readonly implausible: number;
}

/**
 * One poll of one (source, state), page by page. Nothing it reads changes the state it started
 * from: {@link finish} returns the next state, and a poll that fails is simply dropped, leaving W
 * and the counters where they were (the next poll reads the same window again). Memory: the counts
 * per label set, the identities kept and pending (at most the page cap's worth each), this poll's.
 */
export class EventScan {
  readonly #state: EventState;
  readonly #options: EventRuleOptions;
  readonly #bounds: TimeBounds;
  readonly #from: number;
  readonly #kept: KeptIdentities;
  readonly #pending: PendingOutcomes;
  readonly #refused: RefusedTimes;
  readonly #tally: Tally;
  readonly #outcomes: Tally;
  #outcomeCount = 0;
  #future = 0;
  #implausible = 0;
  #counted = 0;
  /** The greatest time counted by this poll. */
  #newest: number | undefined;
  /** The least plausible time this poll read: a capped ordered poll read everything above it. */
  #leastRead: number | undefined;
  /** An ordered read met a page whose events all lie before the window. */
  #done = false;

  constructor(state: EventState, options: EventRuleOptions) {
    this.#state = state;
    this.#options = options;
    this.#bounds = timeBounds(options.perSecond, options.now);
    // Never before counting began (no history), nor from a fraction of the unit (upstream wants an
    // integer `fromDate`; docs/metrics.md, Event counters).
    this.#from = Math.floor(Math.max(state.since, state.watermark - (options.settle ?? 0)));
    this.#kept = new KeptIdentities(state.kept, options.timedIdentity ?? false);
    this.#pending = new PendingOutcomes(state.pending);
    this.#refused = new RefusedTimes(state.refused ?? []);
    this.#tally = new Tally(state.series, options);
    // The outcome's labels are the event's (already capped) and a fixed set: never folded.
    this.#outcomes = new Tally(state.outcomes, { maxSeries: Infinity });
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
   * Takes one page, newest first. Returns false once an ordered read's page held plausible events
   * all before the window: nothing after can count, the caller stops paging, and the poll is
   * complete. No one event ends a scan.
   */
  read(events: readonly CountedEvent[]): boolean {
    let some = false;
    let inWindow = false;
    for (const event of events) {
      const { time } = event;
      const verdict = timeVerdict(time, this.#bounds);
      if (verdict !== 'ok') {
        // Refused once, however many polls list it again (event-identity.ts).
        const until = verdict === 'ahead' ? time : (this.#options.now ?? this.#state.watermark);
        if (this.#refused.first(event.identity, time, until))
          if (verdict === 'ahead') this.#future++;
          else this.#implausible++;
        continue;
      }
      some = true;
      if (time >= this.#from) inWindow = true;
      if (this.#leastRead === undefined || time < this.#leastRead) this.#leastRead = time;
      this.#take(event);
    }
    if (this.#options.ordered && some && !inWindow) this.#done = true;
    return !this.#done;
  }

  /** One plausible event: its pending outcome read again, or counted unless it was already. */
  #take(event: CountedEvent): void {
    const { time, identity, outcome } = event;
    if (outcome !== undefined && this.#pending.has(identity)) {
      const labels = this.#pending.update(identity, time, outcome.labels, outcome.final);
      if (labels !== undefined) this.#countOutcome(labels, exemplarOf(event));
      this.#kept.claim(identity, time);
      return;
    }
    if (time < this.#from || !this.#kept.claim(identity, time)) return;
    const labels = this.#tally.count(event.labels, event.value, exemplarOf(event));
    this.#counted++;
    if (this.#newest === undefined || time > this.#newest) this.#newest = time;
    if (outcome === undefined) return;
    if (outcome.final) this.#countOutcome([...labels, ...outcome.labels], exemplarOf(event));
    else this.#pending.hold(identity, time, labels, outcome.labels);
  }

  #countOutcome(labels: readonly string[], exemplar: SeriesExemplar | undefined): void {
    this.#outcomes.count(labels, undefined, exemplar);
    this.#outcomeCount++;
  }

  /**
   * Ends a poll that read every page it could: `reachedEnd` says whether the last page came without
   * a cursor (else paging stopped at the page cap). W moves to the greatest time counted, never
   * back and never past the poll's start; a capped poll says the span it did not read and had not
   * said before, even having counted nothing.
   */
  finish(reachedEnd: boolean): ScanResult {
    const old = this.#state;
    const { now, settle = 0, maxKept = Infinity, perSecond, ordered } = this.#options;
    const complete = reachedEnd || this.#done;
    // An event counted ahead of an earlier poll's start is still counted: W follows it as the clock does.
    let newest = this.#newest ?? old.watermark;
    for (const { time } of old.kept) if (time > newest) newest = time;
    const watermark = Math.max(old.watermark, Math.min(newest, now ?? Infinity));
    const upTo = ordered ? (this.#leastRead ?? now ?? old.watermark) : (now ?? this.#newest ?? old.watermark);
    const unread = complete
      ? { seconds: 0, until: old.unreadUntil }
      : unreadSpan(old.watermark, old.unreadUntil, upTo, now, perSecond);
    const cutoff = watermark - settle;
    const { kept, floor } = this.#kept.keep(cutoff, maxKept);
    const window = cutoff - (this.#options.pendingWindow ?? 0);
    const { pending, leaving } = this.#pending.keep(window, maxKept);
    for (const labels of leaving) this.#countOutcome(labels, undefined);
    return {
      state: {
        watermark,
        since: Math.max(old.since, floor),
        kept,
        pending,
        refused: this.#refused.keep(window, maxKept),
        unreadSeconds: old.unreadSeconds + unread.seconds,
        unreadUntil: unread.until,
        complete,
        series: this.#tally.series(),
        outcomes: this.#outcomes.series(),
      },
      counted: this.#counted,
      truncated: this.#tally.truncated,
      folded: this.#tally.folded,
      outcomes: this.#outcomeCount,
      unreadSeconds: unread.seconds,
      future: this.#future,
      implausible: this.#implausible,
    };
  }
}

/** The exemplar an event gives its series (docs/metrics.md, Exemplars): its ID, time and value. */
function exemplarOf(event: CountedEvent): SeriesExemplar | undefined {
  const { exemplar: id, time, value } = event;
  return id === undefined ? undefined : { id, time, value: value ?? 1 };
}
