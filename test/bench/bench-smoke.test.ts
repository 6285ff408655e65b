import { describe, expect, it } from 'vitest';
import { QUICK_PLAN, runBenchmarks } from '../../bench/benchmarks.js';
import { renderReport } from '../../bench/report.js';

// `npm run bench` in miniature (a tiny state, about a second per phase), so the benchmark cannot rot.
// It runs the built exporter (dist/, which `npm test` builds first). No timing is asserted: only that
// every phase ran, measured something, and that the exporter answered every scrape.
describe('benchmark smoke run', () => {
  it('runs every phase and renders the report', async () => {
    // The background poll cycles normally run at the lowest CPU priority: on a busy machine they would
    // starve, and take far longer than the quick plan's minute. Neither is what is checked here.
    const results = await runBenchmarks({ ...QUICK_PLAN, cyclesDeadlineSeconds: 600, cyclesNiceness: 0 });
    for (const scrape of results.large.scrapes) {
      expect(scrape.exporter.failures + scrape.bare.failures).toBe(0);
      expect(scrape.exporter.requests).toBeGreaterThan(0);
      expect(scrape.bare.requests).toBeGreaterThan(0);
    }
    for (const figure of Object.values(results.ingest)) {
      expect(figure.jsonParseMicros).toBeGreaterThan(0);
      expect(figure.ingestMicros).toBeGreaterThan(0);
    }
    // Memory as shipped, after the poll cycles, and under V8's defaults: every point read.
    expect(results.large.memory).toHaveLength(3);
    for (const run of results.large.memory) {
      for (const point of run.points) {
        expect(point.rssBytes).toBeGreaterThan(0);
        expect(point.heapUsedBytes).toBeGreaterThan(0);
      }
    }
    const cycles = results.large.memory[1]?.points ?? [];
    expect(cycles).toHaveLength(3);
    expect(Number(/after (\d+) poll cycles/.exec(cycles[2]?.label ?? '')?.[1])).toBeGreaterThanOrEqual(
      QUICK_PLAN.pollCycles,
    );
    // Every format, with 16 clients and with one.
    expect(results.large.scrapes).toHaveLength(6);
    expect(results.scaling).toHaveLength(QUICK_PLAN.scales.length);
    // Upstash cost is not timing: one request per poll, and no more connections than the pool.
    expect(results.cost.exporter.requests).toBe(results.cost.exporter.polls);
    expect(results.cost.client.requests).toBe(results.cost.client.cycles * results.cost.sources);
    expect(results.cost.client.connectionsOpened).toBeLessThanOrEqual(results.cost.client.poolSize);
    // Account scale: every unit came up; one later cycle polled each unit once, the databases spread.
    const { account } = results;
    // Five QStash sources, two management listings, then one unit per database and per instance.
    expect(account.units).toBe(5 + 2 + QUICK_PLAN.account.databases + account.state.qstashInstances);
    expect(account.unitsUp).toBe(account.units);
    expect(account.readyzSeconds).toBeGreaterThan(0);
    expect(account.quietCycle).toMatchObject({
      requests: account.units,
      paths: account.units,
      duplicates: 0,
      statsRequests: QUICK_PLAN.account.databases,
    });
    expect(account.quietCycle.statsSpanMs).toBeGreaterThan(0);
    expect(account.scrapedCycle.statsRequests).toBeGreaterThan(0);
    expect(account.memoryAtReady.rssBytes).toBeGreaterThan(0);
    for (const scrape of account.scrapes) {
      expect(scrape.exporter.failures + scrape.bare.failures).toBe(0);
      expect(scrape.exporter.requests).toBeGreaterThan(0);
    }
    // One client per format, rounds of many clients, the cycle scraped flat out, RSS sampled.
    expect(account.serial.map((s) => s.label)).toEqual(['text', 'openmetrics', 'gzip']);
    for (const { rounds } of account.rounds) expect(rounds).toHaveLength(QUICK_PLAN.account.rounds);
    for (const load of account.scrapedCycleLoad) {
      expect(load.failures).toBe(0);
      expect(load.requests).toBeGreaterThan(0);
    }
    expect(account.maxSampledRssBytes).toBeGreaterThan(0);
    // The event window was polled whole (every event counted once), its RSS read around it.
    expect(results.eventWindow.counted).toBe(QUICK_PLAN.eventWindowPages * 100);
    expect(results.eventWindow.rssBeforeBytes).toBeGreaterThan(0);
    expect(results.eventWindow.rssAfterBytes).toBeGreaterThan(0);
    // The flood ran, and a scrape was started (and answered) every second of it.
    const { flood } = results;
    expect(flood.scrapes).toHaveLength(QUICK_PLAN.flood.seconds);
    expect(flood.scrapes.every((s) => s.status === 200)).toBe(true);
    expect(flood.windows).toHaveLength(Math.ceil(QUICK_PLAN.flood.seconds / QUICK_PLAN.flood.windowSeconds));
    expect(flood.peakRssBytes).toBeGreaterThan(0);
    // The memory goals' phases again, the exporter in the image's allocator environment.
    const { tuned } = results;
    expect(Object.keys(tuned.env).sort()).toEqual(['GLIBC_TUNABLES', 'MALLOC_ARENA_MAX']);
    // The ENV instruction's values, not a comment's words about them.
    for (const value of Object.values(tuned.env)) expect(value).toMatch(/^[\w.=]+$/);
    expect(tuned.account.unitsUp).toBe(tuned.account.units);
    expect(tuned.account.memoryAfterScrapes.rssBytes).toBeGreaterThan(0);
    expect(tuned.large.scrapes).toHaveLength(6);
    for (const scrape of [...tuned.account.scrapes, ...tuned.large.scrapes]) {
      expect(scrape.exporter.failures + scrape.bare.failures).toBe(0);
    }
    const report = renderReport(results);
    expect(report).toContain('### The serving path without allocator tuning');
    expect(report).toContain("Exporter environment: the bench's own, nothing added");
    expect(report).toContain('### 5. Upstash cost');
    expect(report).toContain('### Account scale');
    expect(report).toContain('### 6. Flood');
    expect(report).toContain('p99 ratio');
    expect(report).toContain('### The event window');
  }, 900_000);
});
