import type { DataMetric } from '../metrics/catalogue.js';
import type { LabelPairs, Sample } from '../metrics/sample.js';
import type { CountedEvent, EventSeries } from './event-rule.js';
import { counterSamples } from './event-samples.js';

// The event families by an application's own labels (docs/metrics.md, Your own labels): the events
// a state counts, counted again once per listed label each carries, on the state's own rule.

/**
 * `event` once per listed label in `labels`, as counted by label: the same time, an identity per
 * label (an event with two labels counts under each), the label alone as its label set.
 */
export function perLabel(event: CountedEvent, labels: readonly string[] | undefined): CountedEvent[] {
  if (labels === undefined) return [];
  return labels.map((label) => ({
    time: event.time,
    identity: `${event.identity}\u0000${label}`,
    labels: [label],
  }));
}

/** The samples of a `…_label_…` counter: the series of the labels `listed` now, `extra` after `label`. */
export function labelSamples(
  metric: DataMetric,
  account: string,
  listed: readonly string[] | undefined,
  series: readonly EventSeries[] | undefined,
  extra: LabelPairs = [],
): Sample[] {
  if (listed === undefined || listed.length === 0 || series === undefined) return [];
  // A label a reload took off the list keeps its state, but is no longer shown.
  const kept = series.filter((s) => listed.includes(s.labels[0] ?? ''));
  return counterSamples(metric, account, ['label'], kept, extra);
}
