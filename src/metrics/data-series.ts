import type { DataMetric } from './catalogue.js';
import { familyHeader, formatLabels, formatValue, type Format } from './exposition.js';
import type { Sample } from './sample.js';

/**
 * The polled data series of every source, and their exposition. Each source's sample lines are
 * rendered once, when its poll lands; {@link render} only joins them, and the ExpositionCache calls
 * it once per {@link version}, not per scrape.
 */
export class DataSeries {
  readonly #metrics: readonly DataMetric[];
  /** Per source: metric name → its rendered sample lines. */
  readonly #bySource = new Map<string, Map<string, string>>();
  readonly #counts = new Map<string, number>();
  #version = 0;

  /** `metrics` are every family a source may fill, in exposition order. */
  constructor(metrics: readonly DataMetric[]) {
    this.#metrics = metrics;
  }

  /**
   * Replaces every series of a source: whatever the new samples do not name is gone. Two samples
   * with one name and label set would be one series to Prometheus, which keeps either: they throw
   * {@link DuplicateSeriesError} and leave the source's series as they were.
   */
  replace(sourceId: string, samples: readonly Sample[]): void {
    const lines = new Map<string, string>();
    const seen = new Set<string>();
    for (const { metric, labels, value } of samples) {
      const series = `${metric.name}${formatLabels(labels)}`;
      if (seen.has(series)) throw new DuplicateSeriesError(metric.name);
      seen.add(series);
      lines.set(metric.name, `${lines.get(metric.name) ?? ''}${series} ${formatValue(value)}\n`);
    }
    this.#bySource.set(sourceId, lines);
    this.#counts.set(sourceId, samples.length);
    this.#version++;
  }

  /** Drops every series of a source (its data went stale). */
  drop(sourceId: string): void {
    if (!this.#bySource.delete(sourceId)) return;
    this.#counts.delete(sourceId);
    this.#version++;
  }

  /** Whether a source currently has series exposed. */
  has(sourceId: string): boolean {
    return this.#bySource.has(sourceId);
  }

  /** How many data series are exposed in all. */
  get size(): number {
    let total = 0;
    for (const count of this.#counts.values()) total += count;
    return total;
  }

  /** Changes whenever {@link render}'s output may have. */
  get version(): number {
    return this.#version;
  }

  /** The data section of /metrics; families without samples are left out. */
  render(format: Format): string {
    // Sources in a fixed order, so the output does not depend on which poll finished first.
    const sources = [...this.#bySource.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, lines]) => lines);
    let out = '';
    for (const metric of this.#metrics) {
      let lines = '';
      for (const source of sources) lines += source.get(metric.name) ?? '';
      if (lines !== '') out += familyHeader(metric.name, metric.help, 'gauge', format) + lines;
    }
    return out;
  }
}

/** A poll produced two samples of one series: a fault of the mapping, not of the data. */
export class DuplicateSeriesError extends Error {
  constructor(metric: string) {
    super(`two samples of one ${metric} series`);
    this.name = 'DuplicateSeriesError';
  }
}
