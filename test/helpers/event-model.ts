import { expect } from 'vitest';
import type { EventAccount, Polled, SeriesKey } from './event-account.js';
import { SETTLE_MS, START, labelOf } from './event-account.js';

// The model the event sources' properties check against (docs/metrics.md, Event counters): which
// events upstream holds and when each became visible, what each poll was served, what the serving
// thread was last given, and the invariants after every step:
// - exactly once: no event counted twice (a run re-stamped later is the same run), and at the end
//   every plausible event counted, unless it was visible more than the settle window late or a
//   capped poll left it unread (then unread seconds were said);
// - no event ends a scan: an implausible time is never counted, is said rejected (by the first poll served it), fails no poll,
//   and W never runs ahead of the clock of the poll that moved it;
// - unread seconds said once: never more in all than the time since the start, and after a capped
//   poll that left W where it was, no more than the time since that poll;
// - nothing published goes down, across deaths and reloads.

/** An event of the model. */
export interface ModelEvent {
  readonly id: string;
  readonly state: string;
  /** Counted when read: its time is plausible. */
  readonly plausible: boolean;
  /** The time it is dated (ms), for a plausible one. */
  time: number;
  /** When it became visible (ms); undefined while it is not. */
  visibleAt: number | undefined;
  /** A capped poll of its state did not read it while it was visible. */
  missable: boolean;
  /** Its time before a re-stamp (a run listed again with a later completion). */
  restampedFrom?: number;
  /** Counted twice, the second time only after its identity was no longer kept: allowed. */
  twice?: boolean;
}

/** How a family of sources says what it counted of each event. */
export interface Counting {
  /** Per event ID, how many times the poll's series count it (one series per event). */
  readonly counts: (series: ReadonlyMap<SeriesKey, number>) => Map<string, number>;
  /** Names a poll may give a rejected event time under. */
  readonly timeFields: readonly string[];
  /** Checks left out (to see what the others find on their own); none by default. */
  readonly skip?: readonly Check[];
}

/** The checks of the model, by the invariant they belong to. */
export type Check =
  | 'I2-fails'
  | 'I2-rejected'
  | 'I2-counted'
  | 'I2-W'
  | 'I3'
  | 'I1-twice'
  | 'I1-final'
  | 'I4'
  | 'I4-cap'
  | 'I6'
  | 'I1-end';

/** What a state's poll said of its unread seconds: how many, at which W, capped or not, when. */
interface Said {
  readonly value: number;
  readonly w: number | undefined;
  readonly complete: boolean;
  readonly clock: number;
}

/** The model of one account's event sources, and the checks of every step. */
export class EventModel {
  readonly events = new Map<string, ModelEvent>();
  /** Per series, the counter values the serving thread holds. */
  #published = new Map<SeriesKey, number>();
  /** Per source, the series of its last poll. */
  #latest = new Map<string, ReadonlyMap<SeriesKey, number>>();
  #latestPublished = new Map<string, ReadonlyMap<SeriesKey, number>>();
  readonly #account: EventAccount;
  readonly #counting: Counting;
  /** Per unread series, what the state's last poll in the worker's line said, W and when. */
  #said = new Map<SeriesKey, Said>();
  #saidPublished = new Map<SeriesKey, Said>();
  /** The implausible events some poll was served: each is said rejected once, at the first. */
  readonly #servedBefore = new Set<string>();
  /** When the last poll that stored anything began: W is not past it. */
  #lastPoll = START;

  constructor(account: EventAccount, counting: Counting) {
    this.#account = account;
    this.#counting = counting;
  }

  /** Adds an event to the model (the caller adds it upstream). */
  add(event: Omit<ModelEvent, 'missable'>): ModelEvent {
    const added = { ...event, missable: false };
    this.events.set(event.id, added);
    return added;
  }

  /** The series of each source's last poll. */
  get latest(): Map<SeriesKey, number> {
    const out = new Map<SeriesKey, number>();
    for (const series of this.#latest.values()) for (const [key, value] of series) out.set(key, value);
    return out;
  }

  /** Checks a poll started at `clock`; `publish`: its result goes to the serving thread. */
  afterPoll(polled: Polled, clock: number, publish: boolean): void {
    const { upstream, limits } = this.#account;
    for (const event of this.events.values())
      if (event.visibleAt === undefined && upstream.events.some((e) => e.id === event.id && e.visible))
        event.visibleAt = clock;
    const on = (check: Check): boolean => !(this.#counting.skip ?? []).includes(check);
    // A state a capped read stored is in doubt even when a later state of the poll failed.
    // An implausible time is said rejected once (I2): by the first poll that is served it, when
    // that poll stands; one that fails may already have stored its state's refusal, so after it
    // nothing is asked of that event.
    let servedImplausible = false;
    for (const [state, served] of upstream.served) {
      for (const id of served.ids)
        if (this.events.get(id)?.plausible === false && !this.#servedBefore.has(id)) {
          this.#servedBefore.add(id);
          servedImplausible = true;
        }
      if (served.pages < limits.maxEventPages || !served.more) continue;
      for (const event of this.events.values())
        if (event.state === state && event.visibleAt !== undefined && !served.ids.has(event.id))
          event.missable = true;
    }
    if (!polled.ok) {
      if (!on('I2-fails')) return;
      // A poll fails only where upstream failed it: no answer about one event may fail it.
      expect(polled.injected, `I2: a poll failed on upstream's answer: ${String(polled.error)}`).toBe(true);
      return;
    }
    const { series, result } = polled;
    this.#latest.set(polled.source, series);
    if (servedImplausible && on('I2-rejected'))
      expect(
        (result.rejectedFields ?? []).some((f) => this.#counting.timeFields.includes(f)),
        'I2: an event of implausible time is said rejected',
      ).toBe(true);
    for (const [key, value] of series) {
      if (key.includes('_watermark_timestamp_seconds') && on('I2-W'))
        expect(value, `I2: W ahead of the poll's clock (${key})`).toBeLessThanOrEqual(clock / 1000 + 1e-9);
      // Each span said once, so that in all no more is said than the time since the start: a
      // capped poll that says again what an earlier one said passes it as polls go on.
      if (key.includes('_unread_seconds_total') && on('I3')) {
        expect(
          value,
          `I3: ${key} says more than the ${(clock - START) / 1000} s since the start`,
        ).toBeLessThanOrEqual((clock - START) / 1000 + 1e-6);
        // With W where the state's last poll left it, only the time since that poll is new.
        const w = series.get(key.replace('_unread_seconds_total', '_watermark_timestamp_seconds'));
        const complete = series.get(key.replace('_unread_seconds_total', '_scan_complete')) === 1;
        const before = this.#said.get(key);
        if (before !== undefined && !before.complete && w === before.w)
          expect(
            value - before.value,
            `I3: ${key} said again, W unchanged: more than the ${(clock - before.clock) / 1000} s since its last poll`,
          ).toBeLessThanOrEqual((clock - before.clock) / 1000 + 1e-6);
        this.#said.set(key, { value, w, complete, clock });
      }
    }
    for (const [id, count] of this.#counting.counts(series)) {
      const event = this.events.get(id);
      if (on('I2-counted'))
        expect(event?.plausible, `I2: event ${id} of implausible time counted`).not.toBe(false);
      // A re-stamped run's identity is kept while W − settle is not past its time; W is at most
      // the clock of the poll before: only once that is past may the later listing count again.
      const forgotten =
        event?.restampedFrom !== undefined &&
        this.#lastPoll - SETTLE_MS > Math.min(event.restampedFrom, event.time);
      if (on('I1-twice'))
        expect(count, `I1: event ${id} counted ${count} times`).toBeLessThanOrEqual(forgotten ? 2 : 1);
      if (event !== undefined && count === 2) event.twice = true;
    }
    if (publish) this.publish(series);
    this.#lastPoll = clock;
  }

  /** What the serving thread gets: no counter it held goes down (I6). */
  publish(series: ReadonlyMap<SeriesKey, number>): void {
    const on = !(this.#counting.skip ?? []).includes('I6');
    for (const [key, value] of series) {
      if (!on) break;
      if (!/_total\{|_count\{|_sum\{|_bucket\{/.test(key)) continue;
      const before = this.#published.get(key) ?? 0;
      expect(value, `I6: published counter ${key} went down`).toBeGreaterThanOrEqual(before);
      this.#published.set(key, value);
    }
    for (const [key, before] of this.#published)
      if (on && !series.has(key) && sameSource(key, series))
        expect.fail(`I6: published counter ${key} (${before}) vanished`);
    this.#account.publish();
    this.#saidPublished = new Map(this.#said);
    this.#latestPublished = new Map(this.#latest);
  }

  /** A worker death: the line goes back to the last publication. */
  die(): void {
    this.#account.die();
    this.#said = new Map(this.#saidPublished);
    this.#latest = new Map(this.#latestPublished);
  }

  /**
   * After the last polls (read whole, the clock past every horizon): every plausible event counted
   * once, unless it became visible more than the settle window late or a capped poll left it
   * unread, and then its state said unread seconds.
   */
  checkEnd(): void {
    if ((this.#counting.skip ?? []).includes('I1-end')) return;
    const counts = this.#counting.counts(this.latest);
    for (const event of this.events.values()) {
      if (!event.plausible || event.visibleAt === undefined || event.time < START) continue;
      const count = counts.get(event.id) ?? 0;
      if (count === 1 || (count === 2 && event.twice === true)) continue;
      const late = event.visibleAt - Math.min(event.time, event.restampedFrom ?? event.time) > SETTLE_MS;
      if (count === 0 && late) continue;
      if (count === 0 && event.missable) {
        const unread = [...this.latest].some(
          ([key, value]) =>
            key.includes('_unread_seconds_total') && labelOf(key, 'state') === event.state && value > 0,
        );
        expect(unread, `I6: event ${event.id} missed by a capped poll, no unread seconds said`).toBe(true);
        continue;
      }
      expect.fail(
        `I1: event ${event.id} (${event.state}, dated ${event.time - START} ms after the start, visible at ${event.visibleAt - START}) counted ${count} times`,
      );
    }
  }
}

/** Whether `key` is a family `series` (one source's poll) has any series of. */
function sameSource(key: SeriesKey, series: ReadonlyMap<SeriesKey, number>): boolean {
  const family = key.slice(0, key.indexOf('{'));
  // The scan families are shared by the sources of one log, apart by `state`.
  const state = key.includes('_unread_seconds_total') ? labelOf(key, 'state') : undefined;
  for (const other of series.keys())
    if (other.startsWith(`${family}{`) && (state === undefined || labelOf(other, 'state') === state))
      return true;
  return false;
}
