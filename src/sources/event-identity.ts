import type { KeptEvent, PendingEvent } from './event-state.js';

// The one place that decides whether an event was counted already (docs/metrics.md, Event counters):
// by its identity, never by the time it is read at. A run listed again with a later completion time,
// an audit event listed at t and then t + 1, are the events already counted. A log event's identity
// holds its time (Upstash keys it by message, time and state): there an identity is a message and
// one of its times. Each identity is kept with the greatest time it was listed at, until W − settle
// passes that time; bounded by the page cap's worth.

/** Identity → its time (the greatest listed, or the one counted), or its times (a timed identity). */
type Times = Map<string, number | number[]>;

/** How many identities at one instant are compared one by one before they are indexed. */
const SAME_INSTANT_SCAN = 16;

/**
 * The identities counted, as one poll reads and adds to them. A poll's own timed identities are
 * held as two arrays while they come newest first (the QStash log), compared only with those of the
 * same instant; a large Map per poll was a third of the cost of counting a window (BENCHMARKS.md,
 * "The event window, read by hand"). They are indexed as soon as one comes out of order.
 */
export class KeptIdentities {
  /** The state's identities, and every identity of an untimed poll. */
  readonly #kept: Times = new Map();
  readonly #timed: boolean;
  readonly #ids: string[] = [];
  readonly #times: number[] = [];
  /** The least time claimed before the index: unindexed, the times only go down. */
  #least = Infinity;
  #index: Times | undefined;

  /** From the kept list of a state; `timed`: an identity is only the same event at the same time. */
  constructor(kept: readonly KeptEvent[], timed: boolean) {
    this.#timed = timed;
    for (const { time, identity } of kept) note(this.#kept, identity, time, timed);
  }

  /**
   * Whether the event is new: if so it is noted as counted at `time`; if not (counted already), the
   * time it is listed at now is noted.
   */
  claim(identity: string, time: number): boolean {
    if (!this.#timed) {
      const greatest = this.#kept.get(identity);
      if (greatest === undefined || (typeof greatest === 'number' && time > greatest))
        this.#kept.set(identity, time);
      return greatest === undefined;
    }
    if (holds(this.#kept, identity, time)) return false;
    if (time > this.#least || this.#index !== undefined) return this.#indexed(identity, time);
    // Unindexed, the times only go down: those of this instant are the last ones.
    for (let at = this.#ids.length - 1, scanned = 0; this.#times[at] === time; at--, scanned++) {
      if (scanned >= SAME_INSTANT_SCAN) return this.#indexed(identity, time);
      if (this.#ids[at] === identity) return false;
    }
    this.#least = time;
    this.#ids.push(identity);
    this.#times.push(time);
    return true;
  }

  /** {@link claim} once this poll's identities are indexed (built at the first call). */
  #indexed(identity: string, time: number): boolean {
    const index = (this.#index ??= this.#indexOf());
    if (holds(index, identity, time)) return false;
    note(index, identity, time, true);
    this.#ids.push(identity);
    this.#times.push(time);
    return true;
  }

  /** This poll's identities so far, indexed. */
  #indexOf(): Times {
    const index: Times = new Map();
    for (const [at, id] of this.#ids.entries()) note(index, id, this.#times[at] ?? 0, true);
    return index;
  }

  /**
   * The identities to keep, those at `cutoff` or later, at most `max`: beyond, the newest are kept
   * with every one at the oldest instant kept, and `floor` rises to that instant (nothing older can
   * be counted any more, as nothing older can be recognised).
   */
  keep(cutoff: number, max: number): { kept: KeptEvent[]; floor: number } {
    const kept: KeptEvent[] = [];
    for (const [identity, times] of this.#kept)
      if (typeof times === 'number') {
        if (times >= cutoff) kept.push({ time: times, identity });
      } else for (const time of times) if (time >= cutoff) kept.push({ time, identity });
    for (const [at, identity] of this.#ids.entries()) {
      const time = this.#times[at] ?? 0;
      if (time >= cutoff) kept.push({ time, identity });
    }
    if (kept.length <= max) return { kept, floor: cutoff };
    kept.sort((a, b) => b.time - a.time);
    const least = kept[Math.max(0, max - 1)]?.time ?? cutoff;
    return { kept: max > 0 ? kept.filter((event) => event.time >= least) : [], floor: least };
  }
}

/** Whether `times` holds `identity` at `time` (a timed identity). */
function holds(times: Times, identity: string, time: number): boolean {
  const at = times.get(identity);
  return at === time || (typeof at === 'object' && at.includes(time));
}

/**
 * Notes `identity` at `time`: one more time of a timed identity (never one it holds: a kept list
 * names each time once, and the index notes only what it does not hold), else its greatest.
 */
function note(times: Times, identity: string, time: number, timed: boolean): void {
  const at = times.get(identity);
  if (at === undefined) times.set(identity, time);
  else if (!timed) times.set(identity, Math.max(time, typeof at === 'number' ? at : time));
  else if (typeof at === 'number') times.set(identity, [at, time]);
  else at.push(time);
}

/**
 * The events refused for their time (docs/metrics.md, Event counters, rule 2), each as its identity
 * and the time it was listed with: a refusal is counted once, however many polls list it again.
 * Each is kept until the window the source reads passes the latest time it could truly have: its
 * own for one dated ahead, the start of the poll that read it for one that is no time (Upstash lists
 * nothing after that). An event refused as ahead whose time comes within the horizon later is a time
 * then, and counted as any other. Bounded as the identities are.
 */
export class RefusedTimes {
  /** `identity\0time` → until when it is kept. */
  readonly #refused = new Map<string, number>();

  /** From the refused list of a state. */
  constructor(refused: readonly KeptEvent[]) {
    for (const { identity, time } of refused) this.#refused.set(identity, time);
  }

  /** Whether this refusal is new (then noted, kept until `until`); false if it was counted before. */
  first(identity: string, time: number, until: number): boolean {
    const key = `${identity}\u0000${String(time)}`;
    const kept = this.#refused.get(key);
    this.#refused.set(key, Math.max(kept ?? until, until));
    return kept === undefined;
  }

  /** The refusals to keep: those kept until `cutoff` or later, the latest `max`, latest first. */
  keep(cutoff: number, max: number): KeptEvent[] {
    const kept: KeptEvent[] = [];
    for (const [identity, time] of this.#refused) if (time >= cutoff) kept.push({ time, identity });
    kept.sort((a, b) => b.time - a.time);
    return kept.slice(0, Math.max(0, max));
  }
}

/** A pending event as a poll holds it. */
interface Held {
  time: number;
  readonly labels: readonly string[];
  outcome: readonly string[];
}

/**
 * The events counted whose outcome is not final (a failed run whose failure function is still in
 * progress): read again while their time is in the window the source reads; one that turns final is
 * handed back to be counted, and one that leaves the window (or the bound) unfinished is handed back
 * as it last was. Each is handed back once.
 */
export class PendingOutcomes {
  readonly #held = new Map<string, Held>();

  constructor(pending: readonly PendingEvent[]) {
    for (const { identity, time, labels, outcome } of pending)
      this.#held.set(identity, { time, labels, outcome });
  }

  /** Whether `identity` is pending. */
  has(identity: string): boolean {
    return this.#held.has(identity);
  }

  /** Holds an event counted whose outcome is not final yet. */
  hold(identity: string, time: number, labels: readonly string[], outcome: readonly string[]): void {
    this.#held.set(identity, { time, labels, outcome });
  }

  /**
   * The pending event `identity` read again at `time` with `outcome`: the labels to count its outcome
   * under once it is final (it is no longer pending then), undefined while it is not.
   */
  update(identity: string, time: number, outcome: readonly string[], final: boolean): string[] | undefined {
    const held = this.#held.get(identity);
    if (held === undefined) return undefined;
    held.time = Math.max(held.time, time);
    held.outcome = outcome;
    if (!final) return undefined;
    this.#held.delete(identity);
    return [...held.labels, ...outcome];
  }

  /**
   * The pending events to keep (time at `cutoff` or later, the newest `max`), and the label sets of
   * those that leave, as they last were: counted now, once.
   */
  keep(cutoff: number, max: number): { pending: PendingEvent[]; leaving: string[][] } {
    const pending: PendingEvent[] = [];
    const leaving: string[][] = [];
    for (const [identity, { time, labels, outcome }] of this.#held)
      if (time >= cutoff) pending.push({ time, identity, labels, outcome });
      else leaving.push([...labels, ...outcome]);
    if (pending.length > max) {
      pending.sort((a, b) => b.time - a.time);
      for (const gone of pending.splice(Math.max(0, max))) leaving.push([...gone.labels, ...gone.outcome]);
    }
    return { pending, leaving };
  }
}
