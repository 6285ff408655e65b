import { Registry } from 'prom-client';
import { afterEach, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { createLogger } from '../../src/logger.js';
import { familyPredicate } from '../../src/metrics/family-filter.js';
import { PollThread } from '../../src/worker/thread.js';
import { createMetricsEndpoint, keepWarm, type Section } from '../../src/server/metrics-endpoint.js';
import { API_KEY, EMAIL, eventually, QSTASH_TOKEN, testConfig } from '../helpers/harness.js';

// A reload builds the body once. The poll thread, the metrics endpoint and its keep-warm wired
// as app.ts wires them, with the real worker; the data section is counted as the cache renders it. A
// reload's own settings (metrics.deny) apply in the same step as the publication it answers with, so
// the rebuild that publication starts is the only one: the scrape after it renders nothing again.

let stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

it('a reload that drops a source and changes metrics.deny renders the data section once, and the next scrape shows both', async () => {
  // Frozen: every poll answers the same bytes, so the data section moves only with the reload.
  const sim: Simulator = await startSimulator({
    qstashToken: QSTASH_TOKEN,
    email: EMAIL,
    apiKey: API_KEY,
    databases: ['db-a'],
    frozen: true,
  });
  stops.push(async () => sim.stop());
  const config = testConfig(sim.url, { intervalSeconds: 60, databases: ['db-a'], logLevel: 'warn' });
  const polling = new PollThread(config, {
    logger: createLogger('warn', { write: () => undefined }),
    version: 'test',
    revision: 'unknown',
  });
  stops.push(async () => polling.stop());
  let renders = 0;
  const data: Section = {
    version: () => polling.data.version(),
    render: (format, keep) => {
      renders++;
      return polling.data.render(format, keep);
    },
  };
  const cache = createMetricsEndpoint({ data, health: polling.health }, new Registry());
  await polling.start();
  const stopWarming = keepWarm(cache, polling);
  stops.push(stopWarming);
  const text = async () => Buffer.concat(await cache.body('text', 'identity')).toString('utf8');
  await eventually('every unit polled', async () =>
    polling.ready && (await text()) !== '' ? true : undefined,
  );
  expect(await text()).toContain('upstash_qstash_flow_control_keys{');

  expect(await text()).toContain('upstash_qstash_url_groups{');
  const before = renders;
  // A reload that moves the section (url_groups is no longer polled: its units go) and hides a family.
  const deny = ['upstash_qstash_flow_control_.*'];
  const [qstash] = config.qstash;
  await polling.reload(
    { ...config, qstash: [{ ...qstash!, sources: ['flow_control'] }], metrics: { allow: [], deny } },
    () => cache.reconfigure(familyPredicate({ allow: [], deny })),
  );
  const after = await text();
  expect(after).not.toContain('upstash_qstash_flow_control_');
  expect(after).not.toContain('upstash_qstash_url_groups');
  expect(after).toContain('upstash_redis_');
  // Once: the rebuild the reload's publication started, with its own lists (not one with the old
  // lists thrown away by the next scrape). Nothing else moves the section meanwhile: polls every
  // minute of a frozen simulator answer the same bytes.
  expect(renders - before).toBe(1);
  // And then cached as before.
  await text();
  expect(renders - before).toBe(1);
}, 90_000);
