import type { DataSeries } from '../../src/metrics/data-series.js';
import type { Format } from '../../src/metrics/exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from '../../src/metrics/family-filter.js';
import type { SelfMetrics } from '../../src/poller/self-metrics.js';
import { PollStore } from '../../src/worker/store.js';
import type { PolledSections } from '../../src/server/metrics-endpoint.js';

/**
 * What the serving thread makes of a worker's series and health counts, through the production path:
 * the changes taken as a publication takes them, applied to the serving side's store, rendered as
 * /metrics renders its polled sections (data, then health with build info).
 */
export class Served {
  readonly store = new PollStore({ version: 'test', revision: 'unknown', sharding: { shard: 0, total: 1 } });
  readonly #series: DataSeries;
  readonly #metrics: SelfMetrics;

  constructor(series: DataSeries, metrics: SelfMetrics) {
    this.#series = series;
    this.#metrics = metrics;
  }

  /** Takes what moved since the last call. */
  take(): void {
    this.store.apply({
      catalogue: this.#series.metrics,
      data: this.#series.takeChanges(),
      health: this.#metrics.takeChanges(),
      ready: false,
      polled: 0,
      status: Buffer.from('[]'),
      known: undefined,
      events: undefined,
    });
  }

  /** The data section as served. */
  data(format: Format = 'text', keep: FamilyPredicate = ALL_FAMILIES): string {
    this.take();
    return text(this.store.data.render(format, keep));
  }

  /** The health section as served. */
  health(format: Format = 'text', keep: FamilyPredicate = ALL_FAMILIES): string {
    this.take();
    return text(this.store.health.render(format, keep));
  }

  /** The polled sections as the metrics endpoint reads them; a version read takes what moved first. */
  sections(): PolledSections {
    const moved = (version: () => number) => () => {
      this.take();
      return version();
    };
    const { data, health } = this.store;
    return {
      data: { version: moved(() => data.version()), render: (format, keep) => data.render(format, keep) },
      health: {
        version: moved(() => health.version()),
        render: (format, keep) => health.render(format, keep),
      },
    };
  }

  /** Both polled sections, data first, as /metrics serves them. */
  text(format: Format = 'text', keep: FamilyPredicate = ALL_FAMILIES): string {
    return `${this.data(format, keep)}${this.health(format, keep)}`;
  }
}

function text(rendered: ReturnType<PollStore['data']['render']>): string {
  if (rendered instanceof Promise) throw new Error('the polled sections render at once');
  return Buffer.concat(rendered).toString('utf8');
}
