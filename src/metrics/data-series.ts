import { DATA_METRICS } from './catalogue.js';
import { familyHeader, formatLabels, formatValue, type Format } from './exposition.js';
import type { Sample } from './samples.js';

/**
 * The polled data series of every source, and their exposition. Scrapes vastly outnumber polls, so
 * each source's sample lines are rendered once when its poll lands, and the whole data section once
 * per change and format; a scrape then costs a string concatenation at most.
 */
export class DataSeries {
  /** Per source: metric name → its rendered sample lines. */
  readonly #bySource = new Map<string, Map<string, string>>();
  readonly #counts = new Map<string, number>();
  readonly #rendered = new Map<Format, string>();

  /** Replaces every series of a source: whatever the new samples do not name is gone. */
  replace(sourceId: string, samples: readonly Sample[]): void {
    const lines = new Map<string, string>();
    for (const { metric, labels, value } of samples) {
      lines.set(
        metric.name,
        `${lines.get(metric.name) ?? ''}${metric.name}${formatLabels(labels)} ${formatValue(value)}\n`,
      );
    }
    this.#bySource.set(sourceId, lines);
    this.#counts.set(sourceId, samples.length);
    this.#rendered.clear();
  }

  /** Drops every series of a source (its data went stale). */
  drop(sourceId: string): void {
    if (!this.#bySource.delete(sourceId)) return;
    this.#counts.delete(sourceId);
    this.#rendered.clear();
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

  /** The data section of /metrics; families without samples are left out. */
  render(format: Format): string {
    const cached = this.#rendered.get(format);
    if (cached !== undefined) return cached;
    // Sources in a fixed order, so the output does not depend on which poll finished first.
    const sources = [...this.#bySource.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, lines]) => lines);
    let out = '';
    for (const metric of DATA_METRICS) {
      let lines = '';
      for (const source of sources) lines += source.get(metric.name) ?? '';
      if (lines !== '') out += familyHeader(metric.name, metric.help, 'gauge', format) + lines;
    }
    this.#rendered.set(format, out);
    return out;
  }
}
