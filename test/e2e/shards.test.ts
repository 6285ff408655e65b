import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  ROUTES,
  startSimulator,
} from '../../src/demo/simulator.js';
import type { Simulator } from '../../src/demo/simulator.js';
import {
  startExporter,
  waitForStatus,
  writeConfig,
  type ExporterProcess,
} from '../helpers/exporter-process.js';

// Sharding (docs/sharding.md, How units are shared out): three shards and one unsharded process, each against
// its own simulator (the same frozen data on the same clock), so that every process's Upstash requests can be
// counted apart. The union of the shards' data series must equal the unsharded output, and each unit must be
// polled by exactly one shard.

const NOW = Date.UTC(2026, 10, 1, 12, 0, 0);
const DATABASES = Array.from({ length: 9 }, (_, i) => `db-shard-${i}`);
const ACCOUNTS = ['eu', 'us', 'ap'];
const LISTINGS = new Set<string>(['databases', 'qstash_users', 'vector_indexes', 'search_indexes']);
// Only the start-up poll is counted: a tick (cron, on the wall clock) that fell between the processes'
// start-ups would give one process a poll more than the others. The own schedules too (the DLQs' 5m
// default did, once, at a five-minute tick). So the entries tick once a year and the own schedules at
// midnight: an hourly tick fell within a run one time in 20 when a busy machine made it 3 minutes long.
// The event and account-safety schedules (1m and 5m by default) alike: an events tick fell between the
// start-ups once, and one shard read the workflow log's four states once more than the whole.
const SCHEDULE = '0 0 0 1 1 *';
const INTERVAL = '24h';

function config(url: string): string {
  return writeConfig(`
qstash:
${ACCOUNTS.map((name) => `  - name: ${name}\n    url: ${url}\n    token: ${DEMO_QSTASH_TOKEN}\n    schedule: "${SCHEDULE}"\n    dlq_interval: ${INTERVAL}\n    events_interval: ${INTERVAL}`).join('\n')}
management:
  - name: main
    url: ${url}
    email: ${DEMO_EMAIL}
    api_key: ${DEMO_API_KEY}
    databases: [${DATABASES.join(', ')}]
    schedule: "${SCHEDULE}"
    backups_interval: ${INTERVAL}
    audit_interval: ${INTERVAL}
`);
}

/**
 * The data series of an exposition (not the exporter's own), as `name{labels} value` lines. An event
 * source's watermark starts at its process's start, which differs from process to
 * process: its series is compared without its value.
 */
function dataLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /^upstash_(qstash|redis|workflow|audit|team)_/.test(line))
    .map((line) =>
      /^upstash_\w+_watermark_timestamp_seconds\{/.test(line) ? line.slice(0, line.lastIndexOf(' ')) : line,
    );
}

/** Health series label sets (`upstash_up`), without values. */
function upLabels(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('upstash_up{'))
    .map((line) => line.slice(0, line.lastIndexOf(' ')));
}

describe('shards', () => {
  const sims: Simulator[] = [];
  const exporters: ExporterProcess[] = [];
  const texts: string[] = [];

  beforeAll(async () => {
    for (const shard of ['none', '0', '1', '2']) {
      const sim = await startSimulator({ frozen: true, now: () => NOW, databases: DATABASES });
      sims.push(sim);
      const args = shard === 'none' ? [] : ['--shard', shard, '--total-shards', '3'];
      exporters.push(await startExporter(['--config', config(sim.url), ...args]));
    }
    for (const exporter of exporters) await waitForStatus(`${exporter.url}/readyz`, 200);
    for (const exporter of exporters) texts.push(await (await fetch(`${exporter.url}/metrics`)).text());
  }, 180_000);

  afterAll(async () => {
    await Promise.all(exporters.map(async (exporter) => exporter.stop()));
    await Promise.all(sims.map(async (sim) => sim.stop()));
  });

  it('the union of the shards data series equals the unsharded output, without overlap', () => {
    const [whole = '', ...shards] = texts;
    const union = shards.flatMap(dataLines);
    expect(new Set(union).size).toBe(union.length);
    expect(union.sort()).toEqual(dataLines(whole).sort());
    expect(dataLines(whole).length).toBeGreaterThan(100);
  });

  it('each unit is polled, and its health exported, by exactly one shard', () => {
    const [whole = '', ...shards] = texts;
    const union = shards.flatMap(upLabels);
    expect(union.sort()).toEqual(upLabels(whole).sort());
    for (const route of ROUTES) {
      const requests = sims.slice(1).reduce((n, sim) => n + sim.requests(route), 0);
      // The listings are the exception (docs/sharding.md, What it costs Upstash): each shard that needs their
      // news asks itself.
      if (LISTINGS.has(route)) {
        expect(requests, route).toBeGreaterThanOrEqual(sims[0]!.requests(route));
        expect(requests, route).toBeLessThanOrEqual(3 * sims[0]!.requests(route));
      } else {
        expect(requests, route).toBe(sims[0]!.requests(route));
      }
    }
    // Every shard has some of the units.
    for (const text of shards) expect(upLabels(text).length).toBeGreaterThan(0);
  });

  it('says which shard it is, in gauges and on the landing page', async () => {
    expect(texts[0]).toMatch(/^upstash_exporter_shard_ordinal 0$/m);
    expect(texts[0]).toMatch(/^upstash_exporter_total_shards 1$/m);
    expect(texts[3]).toMatch(/^upstash_exporter_shard_ordinal 2$/m);
    expect(texts[3]).toMatch(/^upstash_exporter_total_shards 3$/m);
    const page = await (await fetch(`${exporters[2]!.url}/`)).text();
    expect(page).toContain('shard 1 of 3');
  });
});
