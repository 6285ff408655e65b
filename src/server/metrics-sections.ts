import type { Registry } from 'prom-client';
import { renderRegistry } from '../metrics/exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from '../metrics/family-filter.js';
import type { Rendered } from '../metrics/section-store.js';
import { ExpositionCache, type Section } from './scrape-cache.js';

/** Process and Node.js metrics (CPU, memory, event loop lag…) are read at most this long ago. */
export const SELF_METRICS_MAX_AGE_MS = 1000;

/**
 * Rebuilds of one body a scrape may cause per second: a thousand databases' polls land every 10 ms,
 * and a body of megabytes rebuilt (and deflated) for each would leave no time for scrapes. Beyond it
 * a scrape shows what had landed up to a second before it (keep-warm.ts rebuilds it then).
 */
export const REBUILDS_PER_SECOND = 2;

/** What the poller renders: the data series, and the health metrics that speak for them. */
export interface PolledSections {
  readonly data: Section;
  readonly health: Section;
}

/**
 * The /metrics cache of an exporter, its sections in order: the data series, then our own health
 * metrics (and build info), then the process and Node.js metrics of `registry`, then OpenMetrics'
 * `# EOF`. The polled sections move as the poller hands them over (the data and the health series
 * that speak for them from the same moment: `upstash_up` never lags its series); process metrics
 * show within {@link SELF_METRICS_MAX_AGE_MS}.
 */
export function createMetricsCache(
  polled: PolledSections,
  registry: Registry,
  keep: FamilyPredicate = ALL_FAMILIES,
): ExpositionCache {
  return new ExpositionCache(
    [
      polled.data,
      polled.health,
      {
        version: () => Math.floor(Date.now() / SELF_METRICS_MAX_AGE_MS),
        render: async (format, keep) => renderedText(await renderRegistry(registry, format, keep)),
      },
      { version: () => 0, render: (format) => renderedText(format === 'openmetrics' ? '# EOF\n' : '') },
    ],
    { burst: REBUILDS_PER_SECOND, keep },
  );
}

/** Text as a section's bytes. */
export function renderedText(text: string): Rendered {
  return [Buffer.from(text, 'utf8')];
}
