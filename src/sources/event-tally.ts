import { newer, OTHER, type EventSeries, type KeyBudgetState, type SeriesExemplar } from './event-state.js';

// The counts of a (source, state) per label set, and the one cap on them (docs/metrics.md, Event
// counters): at most `limits.max_event_series` label sets, a new one beyond folded into `other`.
// Where two families form a ratio (errors and deliveries, per destination), the first label is the
// key both share: a key is kept under its name in every family or folded in every one, decided by
// one budget of keys ({@link KeyBudget}). Only the labels handed in are folded: the fixed-set labels
// of an outcome (a failure function's state) are appended after the cap, never folded.

/** Folded keys a budget remembers having said; beyond, a fold is said once per poll. */
const SAID_AT_MOST = 10_000;

/**
 * The keys (first labels) a budget of `max` holds, shared by the families of a ratio: the keys
 * already counted under their name by any of them, then new ones while there is room. A key once
 * admitted stays; one refused stays folded for good. Kept in the entry's state
 * (`kept`), the decision is one for every source sharing it, whatever order they poll in.
 */
export class KeyBudget {
  readonly #kept: KeyBudgetState;
  readonly #max: number;

  /** From the kept budget (a new one when absent) and the series of every family sharing it. */
  constructor(
    max: number,
    families: readonly (readonly EventSeries[])[],
    kept: KeyBudgetState = { admitted: new Set(), said: new Set() },
  ) {
    this.#max = max;
    this.#kept = kept;
    for (const series of families)
      for (const s of series) {
        const key = s.labels[0];
        if (key !== undefined && key !== OTHER) kept.admitted.add(key);
      }
  }

  /**
   * Whether `key` is counted under its name (admitting it if there is room). A key once refused stays
   * folded, even when a reload raises the cap: a family that counted it under `other` cannot count
   * those events again under its name, so naming it now would cut its ratio apart. Past the refusals
   * remembered, no new key is admitted.
   */
  admit(key: string): boolean {
    const { admitted, said } = this.#kept;
    if (admitted.has(key)) return true;
    if (said.has(key) || said.size >= SAID_AT_MOST || admitted.size >= this.#max) return false;
    admitted.add(key);
    return true;
  }

  /** Whether the fold of `key` is to be said: the first time, by any source sharing the budget. */
  sayFold(key: string): boolean {
    const { said } = this.#kept;
    if (said.has(key)) return false;
    if (said.size < SAID_AT_MOST) said.add(key);
    return true;
  }
}

interface Adding {
  readonly labels: readonly string[];
  count: number;
  sum: number;
  readonly buckets: number[];
  exemplar?: SeriesExemplar;
}

/** How a {@link Tally} caps and observes. */
export interface TallyOptions {
  /** New label sets at most (the all-`other` set, and a kept key's folded sets, not included). */
  readonly maxSeries: number;
  /** The budget of the first label shared with another family; absent: no key. */
  readonly keys?: KeyBudget | undefined;
  /** Histogram bucket bounds (seconds, increasing); none for a plain counter. */
  readonly buckets?: readonly number[] | undefined;
}

/** One poll's counts added to a state's series, new label sets capped. */
export class Tally {
  readonly #series: readonly EventSeries[];
  readonly #options: TallyOptions;
  readonly #index = new Set<string>();
  /** By the labels handed in: where they are counted, and whether that is a fold. */
  readonly #route = new Map<string, { adding: Adding; folded: boolean }>();
  readonly #adding = new Map<string, Adding>();
  #held: number;
  /** Events counted under folded labels. */
  truncated = 0;
  /** What was folded, once each: a key refused, or a label set beyond the cap. */
  readonly folded = new Set<string>();

  constructor(series: readonly EventSeries[], options: TallyOptions) {
    this.#series = series;
    this.#options = options;
    for (const s of series) this.#index.add(keyOf(s.labels));
    this.#held = series.filter((s) => !isFolded(s.labels, options.keys !== undefined)).length;
  }

  /** Counts one event under `labels` (or their fold); returns the labels it was counted under. */
  count(labels: readonly string[], value?: number, exemplar?: SeriesExemplar): readonly string[] {
    const key = keyOf(labels);
    // A label set this poll counted already (most events) costs one lookup.
    let route = this.#route.get(key);
    if (route === undefined) {
      const counted = this.#fold(labels, key);
      const at = keyOf(counted);
      let adding = this.#adding.get(at);
      if (adding === undefined) {
        adding = { labels: counted, count: 0, sum: 0, buckets: (this.#options.buckets ?? []).map(() => 0) };
        this.#adding.set(at, adding);
      }
      route = { adding, folded: counted !== labels };
      this.#route.set(key, route);
    }
    const { adding } = route;
    if (route.folded) this.truncated++;
    adding.count++;
    // The newest event counted gives the series' exemplar (docs/metrics.md, Exemplars).
    const shown = newer(adding.exemplar, exemplar);
    if (shown !== undefined) adding.exemplar = shown;
    const bounds = this.#options.buckets;
    if (value !== undefined && bounds !== undefined) {
      adding.sum += value;
      const at = bounds.findIndex((bound) => value <= bound);
      if (at >= 0) adding.buckets[at] = (adding.buckets[at] ?? 0) + 1;
    }
    return adding.labels;
  }

  /** The labels a new label set is counted under: its own, the key's fold, or the cap's. */
  #fold(labels: readonly string[], key: string): readonly string[] {
    const { keys } = this.#options;
    if (this.#index.has(key) || isFolded(labels, keys !== undefined)) return labels;
    const first = labels[0];
    if (keys !== undefined && first !== undefined && !keys.admit(first)) {
      if (keys.sayFold(first)) this.folded.add(`key\u0000${first}`);
      return labels.map(() => OTHER);
    }
    if (this.#held < this.#options.maxSeries) {
      this.#held++;
      return labels;
    }
    this.folded.add(key);
    // A kept key keeps its name: only the other labels fold, so its ratio stays whole.
    return labels.map((value, at) => (keys !== undefined && at === 0 ? value : OTHER));
  }

  /** The state's series with this poll's counts added, new label sets after, in the order first seen. */
  series(): EventSeries[] {
    const out = this.#series.map((kept) => {
      const added = this.#adding.get(keyOf(kept.labels));
      return added === undefined ? kept : merge(kept, added);
    });
    for (const [key, added] of this.#adding) if (!this.#index.has(key)) out.push(merge(undefined, added));
    return out;
  }
}

/**
 * Whether a label set is a fold: every label `other`, or with a key every label after the first
 * (a kept key's labels beyond the cap).
 */
function isFolded(labels: readonly string[], keyed: boolean): boolean {
  const [first, ...rest] = labels;
  if (first === undefined || !rest.every((value) => value === OTHER)) return false;
  return first === OTHER || (keyed && rest.length > 0);
}

function keyOf(labels: readonly string[]): string {
  return labels.join('\u0000');
}

function merge(kept: EventSeries | undefined, added: Adding): EventSeries {
  const exemplar = newer(kept?.exemplar, added.exemplar);
  return {
    labels: kept?.labels ?? added.labels,
    count: (kept?.count ?? 0) + added.count,
    sum: (kept?.sum ?? 0) + added.sum,
    buckets: added.buckets.map((n, at) => n + (kept?.buckets[at] ?? 0)),
    ...(exemplar !== undefined && { exemplar }),
  };
}
