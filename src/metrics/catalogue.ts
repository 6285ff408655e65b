/** A data metric: what Prometheus sees in `# HELP`, and how to convert the upstream number. */
export interface DataMetric {
  readonly name: string;
  readonly help: string;
  /** Divisor from the upstream unit to the Prometheus base unit (ms → s is 1000). */
  readonly divisor: number;
  /**
   * `gauge` unless said; `counter` and `histogram` for what the event sources count (docs/metrics.md,
   * Delivery errors and workflow runs),
   * whose samples name their `_bucket`, `_sum` and `_count` series by {@link Sample.suffix}.
   */
  readonly type?: 'gauge' | 'counter' | 'histogram';
}

/** A gauge family of polled data; `divisor` converts the upstream unit to the base unit. */
export const gauge = (name: string, help: string, divisor = 1): DataMetric => ({ name, help, divisor });

/** A counter family of polled data: a total kept across polls by its source (name ends in `_total`). */
export const counter = (name: string, help: string): DataMetric => ({
  name,
  help,
  divisor: 1,
  type: 'counter',
});

/** A histogram family of polled data: its samples are `_bucket` (with `le`), `_sum` and `_count`. */
export const histogram = (name: string, help: string): DataMetric => ({
  name,
  help,
  divisor: 1,
  type: 'histogram',
});
