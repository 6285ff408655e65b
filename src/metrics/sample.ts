import type { DataMetric } from './catalogue.js';

/** Label name/value pairs in exposition order. */
export type LabelPairs = readonly (readonly [string, string])[];

/** One data sample: a metric, its labels in order, and a value in base units. */
export interface Sample {
  readonly metric: DataMetric;
  readonly labels: LabelPairs;
  readonly value: number;
  /** A histogram's series: `_bucket`, `_sum` or `_count` after the family's name; none otherwise. */
  readonly suffix?: '_bucket' | '_sum' | '_count';
  /** Shown after the sample in the OpenMetrics answer only (docs/metrics.md, Exemplars). */
  readonly exemplar?: Exemplar;
}

/** An OpenMetrics exemplar: the labels naming one event, its value, and its time. */
export interface Exemplar {
  readonly labels: LabelPairs;
  readonly value: number;
  /** Unix seconds. */
  readonly timestamp: number;
}

/** A sample of `metric`, its upstream value converted to the metric's base unit. */
export function sample(metric: DataMetric, labels: LabelPairs, value: number): Sample {
  return { metric, labels, value: metric.divisor === 1 ? value : toBaseUnit(value, metric.divisor) };
}

/**
 * Divides into the base unit, rounded to 15 significant digits: 0.693 ms is not exact in binary,
 * and 0.693 / 1000 prints as 0.0006929999999999999. Fifteen digits is all a double holds reliably.
 */
function toBaseUnit(value: number, divisor: number): number {
  return Number((value / divisor).toPrecision(15));
}

/**
 * Keeps the `limit` largest items by `size`, ties broken by `name` so the cut is stable from poll to
 * poll; the order of a list under the limit is left as it is.
 */
export function keepLargest<T>(
  items: readonly T[],
  limit: number,
  size: (item: T) => number,
  name: (item: T) => string,
): readonly T[] {
  if (items.length <= limit) return items;
  return [...items]
    .sort((a, b) => size(b) - size(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))
    .slice(0, limit);
}
