import { describe, expect, it } from 'vitest';
import { DataSeries } from '../../src/metrics/data-series.js';
import { createSelfMetrics } from '../../src/poller/self-metrics.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { Served } from '../helpers/served.js';

// The burst-limit waits as the serving thread holds them (docs/metrics.md, The exporter itself):
// both APIs from the start, and a count that a restarted worker continues rather than restarts.

const line = (api: string, value: number) => `upstash_exporter_burst_waits_total{api="${api}"} ${value}`;

describe('upstash_exporter_burst_waits_total', () => {
  it('is 0 for both APIs before any wait, counts by API, and continues across a worker death', () => {
    const metrics = createSelfMetrics();
    const served = new Served(new DataSeries(DATA_METRICS), metrics);
    expect(served.health()).toContain(line('qstash', 0));
    expect(served.health()).toContain(line('management', 0));

    metrics.burstWait('qstash');
    metrics.burstWait('qstash');
    metrics.burstWait('management');
    expect(served.health()).toContain(line('qstash', 2));
    expect(served.health()).toContain(line('management', 1));

    // The worker dies; its successor starts from what the serving thread holds.
    served.store.workerDied();
    const next = createSelfMetrics(served.store.carried().health);
    next.burstWait('qstash');
    const after = new Served(new DataSeries(DATA_METRICS), next);
    expect(after.health()).toContain(line('qstash', 3));
  });
});
