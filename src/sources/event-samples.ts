import { counter, gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type LabelPairs, type Sample } from '../metrics/sample.js';
import { cumulativeBuckets, type EventSeries, type EventState } from './event-rule.js';

// What every event source (docs/metrics.md, Event counters) exports of each (source, state) it reads besides its own
// counters: whether the last poll reached the end, the span left unread, and the watermark.

/** The `# HELP` phrase of the event sources' series. */
export const POLLED_EVENTS = 'Polled every events_interval from QStash, not at scrape time.';

/** The three scan families of an event source named `upstash_<prefix>_…`. */
export function scanMetrics(prefix: string, what: string, polled: string) {
  return {
    complete: gauge(
      `upstash_${prefix}_scan_complete`,
      `Whether the last poll of the state read the ${what} to the end (1), or stopped at limits.max_event_pages (0). ${polled}`,
    ),
    unread: counter(
      `upstash_${prefix}_unread_seconds_total`,
      `Seconds of the ${what} not read because of limits.max_event_pages: their events are not counted (seconds). ${polled}`,
    ),
    watermark: gauge(
      `upstash_${prefix}_watermark_timestamp_seconds`,
      `The watermark W: events from this time on are read by the next poll, those before it were counted or said unread (Unix time in seconds). ${polled}`,
    ),
  };
}
export type ScanMetrics = ReturnType<typeof scanMetrics>;

/** The scan samples of one (source, state), labelled `account` and `state` as sent upstream. */
export function scanSamples(
  metrics: ScanMetrics,
  account: string,
  state: string,
  event: EventState,
  perSecond: number,
): Sample[] {
  const labels: LabelPairs = [
    ['account', account],
    ['state', state],
  ];
  return [
    sample(metrics.complete, labels, event.complete ? 1 : 0),
    sample(metrics.unread, labels, event.unreadSeconds),
    sample(metrics.watermark, labels, event.watermark / perSecond),
  ];
}

/** The samples of a counter: one per label set counted, the labels named `names` after `account`. */
export function counterSamples(
  metric: DataMetric,
  account: string,
  names: readonly string[],
  series: readonly EventSeries[],
  extra: LabelPairs = [],
): Sample[] {
  return series.map((s) => sample(metric, labelsOf(account, names, s, extra), s.count));
}

/** The samples of a histogram: `_bucket` per bound and `+Inf`, `_sum` and `_count` per label set. */
export function histogramSamples(
  metric: DataMetric,
  bounds: readonly number[],
  account: string,
  names: readonly string[],
  series: readonly EventSeries[],
  extra: LabelPairs = [],
): Sample[] {
  const les = [...bounds.map(String), '+Inf'];
  return series.flatMap((s) => {
    const labels = labelsOf(account, names, s, extra);
    const buckets = cumulativeBuckets(s);
    return [
      ...les.map((le, at) => ({
        ...sample(metric, [...labels, ['le', le]], buckets[at] ?? 0),
        suffix: '_bucket' as const,
      })),
      { ...sample(metric, labels, s.sum), suffix: '_sum' as const },
      { ...sample(metric, labels, s.count), suffix: '_count' as const },
    ];
  });
}

function labelsOf(
  account: string,
  names: readonly string[],
  series: EventSeries,
  extra: LabelPairs,
): LabelPairs {
  return [
    ['account', account],
    ...names.map((name, at): [string, string] => [name, series.labels[at] ?? '']),
    ...extra,
  ];
}
