/** A data metric: what Prometheus sees in `# HELP`, and how to convert the upstream number. */
export interface DataMetric {
  readonly name: string;
  readonly help: string;
  /** Divisor from the upstream unit to the Prometheus base unit (ms → s is 1000). */
  readonly divisor: number;
  /** `gauge` unless said (the exporter's own counters are the only others). */
  readonly type?: 'gauge' | 'counter';
}

/** A gauge family of polled data; `divisor` converts the upstream unit to the base unit. */
export const gauge = (name: string, help: string, divisor = 1): DataMetric => ({ name, help, divisor });
