import { collectDefaultMetrics, type Registry } from 'prom-client';

// prom-client's `_total` gauges break the naming rules; their values are in the unsuffixed gauges.
const DROPPED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * Registers prom-client's process and Node.js metrics in `registry`. The CPU and memory figures are
 * the process's; the heap, event-loop and handle figures are those of the thread that registers them
 * (the one serving HTTP).
 */
export function registerProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULTS) registry.removeSingleMetric(name);
}
