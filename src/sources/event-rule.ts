import type { DataMetric } from '../metrics/catalogue.js';
import { sample, type LabelPairs, type Sample } from '../metrics/sample.js';

// Contract 10.1's rule for sources that turn events into counters, as the audit log uses it: a
// watermark W, events counted at most once, counters that outlive the poll, and a cap on label sets.
// Pure: no clock, no I/O; the source keeps its state between polls (PollRequest.memory).

/** What the rule needs of an event: its time (in the source's unit) and its identity. */
export interface TimedEvent {
  readonly time: number;
  readonly id: string;
}

/**
 * Where counting stands: W, and the identities of the events at exactly W already counted (kept for
 * that one instant only, so memory stays bounded by the events of one instant).
 */
export interface Watermark {
  readonly at: number;
  readonly countedAt: ReadonlySet<string>;
}

/** The watermark of a source that starts counting at `at` (history before it is not counted). */
export function startAt(at: number): Watermark {
  return { at, countedAt: new Set() };
}

/**
 * Of the events of one complete read (every event with time ≥ W), those to count now, each once
 * (an identity repeated in the read counts once), and the watermark after them: the greatest time
 * read, with the identities at it. A read with nothing new leaves W as it was. Applied only once the
 * whole read parsed: a failed read counts nothing and leaves W where it was.
 */
export function advance<E extends TimedEvent>(
  watermark: Watermark,
  events: readonly E[],
): { fresh: E[]; next: Watermark } {
  const fresh: E[] = [];
  const seen = new Set<string>();
  let at = watermark.at;
  for (const event of events) {
    if (event.time < watermark.at || seen.has(event.id)) continue;
    seen.add(event.id);
    if (event.time > at) at = event.time;
    if (event.time === watermark.at && watermark.countedAt.has(event.id)) continue;
    fresh.push(event);
  }
  const countedAt = new Set<string>();
  for (const event of events) if (event.time === at && event.time >= watermark.at) countedAt.add(event.id);
  if (at === watermark.at) for (const id of watermark.countedAt) countedAt.add(id);
  return { fresh, next: { at, countedAt } };
}

/** The label value of every label of the set that events beyond the cap are counted under. */
export const OTHER = 'other';

/**
 * Counters of one metric of one entry, by label set, at most `maxSeries` sets besides the all-`other`
 * one: an event whose set would be new beyond that is counted under `other` (and reported as dropped).
 */
export class EventCounters {
  readonly #metric: DataMetric;
  readonly #labelNames: readonly string[];
  readonly #counts = new Map<string, { labels: readonly string[]; value: number }>();

  constructor(metric: DataMetric, labelNames: readonly string[]) {
    this.#metric = metric;
    this.#labelNames = labelNames;
  }

  /**
   * Counts one event under `values` (one per label name), or under `other` when `maxSeries` sets are
   * already there; says whether it went to `other`.
   */
  count(values: readonly string[], maxSeries: number): boolean {
    const key = JSON.stringify(values);
    const existing = this.#counts.get(key);
    if (existing !== undefined) {
      existing.value++;
      return false;
    }
    const otherKey = JSON.stringify(this.#labelNames.map(() => OTHER));
    const sets = this.#counts.size - (this.#counts.has(otherKey) ? 1 : 0);
    const overflow = sets >= maxSeries && key !== otherKey;
    const target = overflow ? otherKey : key;
    const entry = this.#counts.get(target);
    if (entry !== undefined) entry.value++;
    else
      this.#counts.set(target, {
        labels: overflow ? this.#labelNames.map(() => OTHER) : values,
        value: 1,
      });
    return overflow;
  }

  /** A sample per label set counted so far, `first` labels (the account) before the set's own. */
  samples(first: LabelPairs): Sample[] {
    return [...this.#counts.values()].map(({ labels, value }) =>
      sample(
        this.#metric,
        [...first, ...labels.map((v, i) => [this.#labelNames[i] ?? '', v] as const)],
        value,
      ),
    );
  }
}
