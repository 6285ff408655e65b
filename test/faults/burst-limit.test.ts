import { describe, expect, test } from 'vitest';
import { valueOf } from '../helpers/exposition-parser.js';
import { eventually, useHarness } from '../helpers/harness.js';

// The burst limit through the exporter (docs/operations.md, Behaviour; docs/metrics.md, The exporter
// itself): the simulator answers every DLQ page with `Burst-RateLimit-Remaining: 0`, so the second page
// of each scan waits for the reset. The wait is counted by API on /metrics, and the DLQ's row on the
// landing page says it; the management key, which no answer limited, never waits.

const start = useHarness({
  sim: { frozen: true },
  qstashSources: ['dlq'],
  managementSources: ['databases'],
  dlqIntervalSeconds: 1,
});

const WAITS = 'upstash_exporter_burst_waits_total';

describe('the burst limit through the exporter', () => {
  test('a wait is counted in /metrics by API and said on the landing page', async () => {
    const h = await start();
    const before = await h.scrape();
    // Both APIs from the first scrape, at 0, so that increase() sees the first wait.
    expect(valueOf(before.samples, WAITS, { api: 'qstash' })).toBe(0);
    expect(valueOf(before.samples, WAITS, { api: 'management' })).toBe(0);

    h.sim.setDlq('dlq', { messages: 150 });
    h.sim.setFault('dlq', { kind: 'burst', remaining: 0, resetIn: 200 });
    const counted = await eventually('a burst wait counted', async () => {
      const { samples } = await h.scrape();
      return (valueOf(samples, WAITS, { api: 'qstash' }) ?? 0) >= 1 ? samples : undefined;
    });
    expect(valueOf(counted, WAITS, { api: 'management' })).toBe(0);

    const page = await eventually('the DLQ row says its wait', async () => {
      const { body } = await h.get('/?refresh=0');
      return /waited \d+ times? for Upstash&#39;s burst limit/.test(body) ? body : undefined;
    });
    // Said on the unit that waited only: the databases listing shares no credential with it.
    const said = [...page.matchAll(/data-text="([^"]*)"/g)]
      .map(([, text = '']) => text)
      .filter((text) => text.includes('burst limit'));
    expect(said.length).toBeGreaterThan(0);
    for (const text of said) expect(text).toMatch(/^dlq eu /);

    h.sim.setFault('dlq', null);
    // A poll without a wait clears the row; the counts published with it hold every wait before.
    await eventually('a DLQ poll without a wait', async () => {
      const { body } = await h.get('/?refresh=0');
      return body.includes('burst limit') ? undefined : true;
    });
    const settled = valueOf((await h.scrape()).samples, WAITS, { api: 'qstash' }) ?? NaN;
    expect(settled).toBeGreaterThanOrEqual(1);
    // A counter that stops growing once no answer says Remaining 0 (three more polls of the DLQ).
    const polls = h.sim.requests('dlq');
    await eventually('three more DLQ polls', () => (h.sim.requests('dlq') >= polls + 6 ? true : undefined));
    expect(valueOf((await h.scrape()).samples, WAITS, { api: 'qstash' })).toBe(settled);
  });
});
