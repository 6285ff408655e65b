import { SELF_METRICS_MAX_AGE_MS } from './metrics-sections.js';
import type { ExpositionCache } from './scrape-cache.js';

/**
 * What tells {@link keepWarm} that the polled sections moved (the poll thread); `readied`: this made
 * the exporter ready, so the next scrape must show it.
 */
export interface SectionsMoved {
  onMoved(listener: (readied: boolean) => void): void;
}

/**
 * Refreshes `cache` just after each second turns (when the process metrics' version moves), and as
 * soon as `polled` publishes, until the returned function is called. A refresh that fails is not
 * reported here: it leaves the body stale, so the next scrape rebuilds it on its own path, and
 * reports what fails then as any scrape does.
 */
export function keepWarm(cache: ExpositionCache, polled?: SectionsMoved): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  polled?.onMoved((readied) => {
    if (stopped) return;
    // A scrape after /readyz turned 200 shows every unit's first poll: it waits for this rebuild.
    if (readied) cache.renew();
    void cache.refresh().catch(() => undefined);
  });
  const schedule = (): void => {
    const delay = SELF_METRICS_MAX_AGE_MS - (Date.now() % SELF_METRICS_MAX_AGE_MS) + 1;
    timer = setTimeout(() => {
      void cache
        .refresh()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) schedule();
        });
    }, delay);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
