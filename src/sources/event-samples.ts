import { counter, gauge, type DataMetric } from '../metrics/catalogue.js';
import { EXEMPLAR_LABEL_CHARS } from '../metrics/exposition.js';
import { sample, type Exemplar, type LabelPairs, type Sample } from '../metrics/sample.js';
import type { SourceName } from '../vocabulary.js';
import { cumulativeBuckets, type EventSeries, type EventState } from './event-rule.js';
import { polled } from './source.js';

// What every event source (docs/metrics.md, Event counters) exports of each (source, state) it reads
// besides its own counters: whether the last poll reached the end, the span left unread, and the
// watermark.

/**
 * The three scan families of event source `source`, named `upstash_<prefix>_…`, of the span `what`
 * it reads (`QStash log window`): page by page, or as one unpaged body (the audit log).
 */
export function scanMetrics(
  source: SourceName,
  prefix: string,
  what: string,
  read: 'pages' | 'body' = 'pages',
) {
  const help =
    read === 'pages'
      ? {
          complete: `Whether the last poll of the state read the ${what} to the end (1), or stopped at limits.max_event_pages (0).`,
          unread: `Seconds of the ${what} not read because of limits.max_event_pages: their events are not counted (seconds).`,
          watermark: `The watermark W: events from this time on are read by the next poll, those before it were counted or said unread (Unix time in seconds).`,
        }
      : {
          complete: `Whether the last poll read the ${what} to the end (1; it is one unpaged body, so always 1).`,
          unread: `Seconds of the ${what} left unread because of a page cap (it is one unpaged body, so always 0).`,
          watermark: 'The watermark: events from this time on are counted next (Unix time in seconds).',
        };
  const when = polled(source);
  return {
    complete: gauge(`upstash_${prefix}_scan_complete`, `${help.complete} ${when}`),
    unread: counter(`upstash_${prefix}_unread_seconds_total`, `${help.unread} ${when}`),
    watermark: gauge(`upstash_${prefix}_watermark_timestamp_seconds`, `${help.watermark} ${when}`),
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

/**
 * How a family shows its series' exemplars (docs/metrics.md, Exemplars): the exemplar's label, and
 * the rule's time units per second; none when the entry turned them off.
 */
export interface ExemplarSpec {
  readonly label: string;
  readonly perSecond: number;
}

/**
 * `id` if an exemplar `label`=`id` fits OpenMetrics' limit, else undefined: left out, never cut, and
 * never held (docs/metrics.md, Exemplars).
 */
export function exemplarId(label: string, id: string): string | undefined {
  return Array.from(label).length + Array.from(id).length <= EXEMPLAR_LABEL_CHARS ? id : undefined;
}

/** A series' exemplar as a sample shows it: `value` (1 for a counter) at the event's time. */
function exemplarOf(
  series: EventSeries,
  spec: ExemplarSpec | undefined,
  value: number,
): Exemplar | undefined {
  if (spec === undefined || series.exemplar === undefined) return undefined;
  return {
    labels: [[spec.label, series.exemplar.id]],
    value,
    timestamp: series.exemplar.time / spec.perSecond,
  };
}

/** `sample` with its exemplar, when it has one. */
function withExemplar(sampled: Sample, exemplar: Exemplar | undefined): Sample {
  return exemplar === undefined ? sampled : { ...sampled, exemplar };
}

/** The samples of a counter: one per label set counted, the labels named `names` after `account`. */
export function counterSamples(
  metric: DataMetric,
  account: string,
  names: readonly string[],
  series: readonly EventSeries[],
  extra: LabelPairs = [],
  exemplars?: ExemplarSpec,
): Sample[] {
  return series.map((s) =>
    withExemplar(sample(metric, labelsOf(account, names, s, extra), s.count), exemplarOf(s, exemplars, 1)),
  );
}

/** The samples of a histogram: `_bucket` per bound and `+Inf`, `_sum` and `_count` per label set. */
export function histogramSamples(
  metric: DataMetric,
  bounds: readonly number[],
  account: string,
  names: readonly string[],
  series: readonly EventSeries[],
  extra: LabelPairs = [],
  exemplars?: ExemplarSpec,
): Sample[] {
  const les = [...bounds.map(String), '+Inf'];
  return series.flatMap((s) => {
    const labels = labelsOf(account, names, s, extra);
    const buckets = cumulativeBuckets(s);
    // The exemplar goes on the bucket its value falls in: the least `le` at or above it.
    const value = s.exemplar?.value;
    const found = value === undefined ? -1 : bounds.findIndex((bound) => value <= bound);
    const bucket = found < 0 ? bounds.length : found;
    const exemplar = exemplarOf(s, exemplars, value ?? 1);
    return [
      ...les.map((le, at) =>
        withExemplar(
          { ...sample(metric, [...labels, ['le', le]], buckets[at] ?? 0), suffix: '_bucket' as const },
          at === bucket ? exemplar : undefined,
        ),
      ),
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
