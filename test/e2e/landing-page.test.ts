import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SUSPENDED_DATABASE } from '../../src/demo/fleet.js';
import { DEMO_INJECTED } from '../../src/demo/injected.js';
import { DEMO_CHANGED_FIELD } from '../../src/demo/redis-stats.js';
import { DEMO_FAILING_SCHEDULE, FAILS_AFTER_MS } from '../../src/demo/schedules.js';
import {
  DEMO_API_KEY,
  DEMO_DLQ_CALLER_IP,
  DEMO_DLQ_SECRET,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  DEMO_SEARCH_INDEXES,
} from '../../src/demo/simulator.js';
import { UNIT_KINDS } from '../../src/vocabulary.js';
import { startExporter, waitForStatus, type ExporterProcess } from '../helpers/exporter-process.js';

// The landing page of the real demo (`--demo`, the built program) once its injected faults show:
// the page must name every kind of unit and say each trouble the demo injects, with its reason, as
// the README promises a new user. The failing schedule starts FAILS_AFTER_MS in, so this test waits
// for it: what it waits for is the page saying it, with a bound far above the demo's schedule. One
// demo process serves every case, and /metrics as it is on the first scrape once /readyz says 200.

const WAIT_LIMIT_MS = FAILS_AFTER_MS + 120_000;

/**
 * The event counters, which count from the exporter's start: the demo's opening events
 * (src/demo/opening.ts) put each on /metrics from the first poll.
 */
const FROM_THE_START = [
  'upstash_qstash_delivery_errors_total',
  'upstash_qstash_deliveries_failed_total',
  'upstash_qstash_deliveries_total',
  'upstash_workflow_runs_finished_total',
  'upstash_workflow_failure_callbacks_total',
  'upstash_workflow_run_duration_seconds_count',
  'upstash_audit_events_total',
  // The opening's messages and runs carry both labels the demo lists (docs/metrics.md, Your own labels).
  'upstash_qstash_label_delivery_errors_total',
  'upstash_qstash_label_deliveries_total',
  'upstash_workflow_label_runs_finished_total',
];

/** What the page must say of each fault the demo injects that is trouble in the data. */
const SAID: Readonly<Record<string, string>> = {
  changed_field: `field rejected (wrong type upstream, skipped): ${DEMO_CHANGED_FIELD}`,
  failing_schedule: `1 schedule failing (last run failed): ${DEMO_FAILING_SCHEDULE}`,
};

describe('the landing page of the demo', () => {
  let exporter: ExporterProcess;
  let page = '';
  let metrics = '';
  let whenReady = '';

  beforeAll(async () => {
    exporter = await startExporter(['--demo']);
    await waitForStatus(`${exporter.url}/readyz`, 200);
    whenReady = await (await fetch(`${exporter.url}/metrics`)).text();
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!page.includes(DEMO_FAILING_SCHEDULE) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      page = await (await fetch(`${exporter.url}/?refresh=0`)).text();
    }
    metrics = await (await fetch(`${exporter.url}/metrics`)).text();
    page = await (await fetch(`${exporter.url}/?refresh=0`)).text();
  }, WAIT_LIMIT_MS + 60_000);

  afterAll(async () => {
    await exporter.stop();
  });

  /** The page's row of a unit, from its ID (and source: a database has a unit in several). */
  const rowOf = (id: string, source = ''): string =>
    page
      .split('<tr ')
      .slice(1)
      .find((row) => row.includes(`<span class="id">${id}</span>`) && row.includes(`data-text="${source}`)) ??
    '';

  it('serves every event counter once ready: the first poll counts the opening events', () => {
    // At least 1: a generated event may fall between the start and the first poll too.
    for (const name of FROM_THE_START)
      expect(whenReady, name).toMatch(new RegExp(`^${name}\\{account="demo",[^}]*\\} [1-9]\\d*$`, 'm'));
    expect(whenReady).toMatch(/^upstash_workflow_run_duration_seconds_bucket\{[^}]*le="\+Inf"\} [1-9]\d*$/m);
  });

  it('names every kind of unit: the account-wide by "whole account", the others by name and ID', () => {
    expect(page).toContain('<span class="whole">whole account</span>');
    for (const label of new Set(Object.values(UNIT_KINDS))) {
      if (label === undefined) continue;
      const ids = [...metrics.matchAll(new RegExp(`^upstash_up\\{[^}]*${label}="([^"]+)"`, 'gm'))].map(
        (m) => m[1],
      );
      expect(ids.length, label).toBeGreaterThan(0);
      for (const id of ids)
        expect(rowOf(id ?? ''), `${label} ${id}`).toMatch(/<td class="unit">[^<]+<span class="id">/);
    }
    // Both index products, by their names from the listings.
    for (const family of ['vector', 'search']) {
      const named = [
        ...metrics.matchAll(
          new RegExp(`^upstash_${family}_index_info\\{[^}]*index_id="([^"]+)",index_name="([^"]+)"`, 'gm'),
        ),
      ];
      expect(named.length, family).toBeGreaterThan(0);
      for (const [, id, name] of named)
        expect(rowOf(id ?? '')).toContain(`${name}<span class="id">${id}</span>`);
    }
  });

  it('says each trouble the demo injects in the data, with its reason, on its unit and under "Needs attention"', () => {
    const attention = /<section class="attention">[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    for (const { injected } of DEMO_INJECTED) {
      const said = SAID[injected];
      if (said === undefined) continue;
      expect(attention, injected).toContain(said);
    }
    expect(rowOf(DEMO_SUSPENDED_DATABASE, 'redis_stats ')).toContain(SAID.changed_field);
    expect(page).toContain(`1 database suspended: ${DEMO_SUSPENDED_DATABASE}`);
    // The free Search index starts the month past 80 % of its rerank quota.
    const capped = DEMO_SEARCH_INDEXES.find((index) => (index.maxMonthlyReranks ?? -1) > 0)?.id ?? '';
    expect(rowOf(capped, 'search_stats ')).toMatch(/monthly reranks at \d+ % of max_monthly_reranks/);
    // The injected faults are trouble in the data only: every unit is up, and the header is green.
    const summary = /class="summary">(\d+) units: <span class="ok">(\d+) up<\/span>/.exec(page);
    expect(summary?.[2]).toBe(summary?.[1]);
    expect(page).toContain('<span class="ok">Ready</span>');
  });

  it('says a destination above the delivery error ratio on the qstash_deliveries unit', async () => {
    // The orders destination fails about 12 % of its attempts; a poll of qstash_deliveries (every 10 s)
    // says it once it has a previous poll's errors to compare with, so the page is read until it does.
    const said = /\d+ destinations? failed more than 5 % of (its|their) delivery attempts/;
    const deadline = Date.now() + 120_000;
    let now = page;
    while (!said.test(now) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      now = await (await fetch(`${exporter.url}/?refresh=0`)).text();
    }
    const row = now.split('<tr ').find((r) => r.includes('data-text="qstash_deliveries')) ?? '';
    expect(row).toMatch(said);
  }, 150_000);

  it('shows no secret: no token, key, e-mail, URL, query or IP', () => {
    for (const secret of [DEMO_QSTASH_TOKEN, DEMO_API_KEY, DEMO_EMAIL, DEMO_DLQ_SECRET, DEMO_DLQ_CALLER_IP])
      expect(page).not.toContain(secret);
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).not.toMatch(/[?&](token|key|password)=/i);
    expect(page).not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
    expect(page).not.toMatch(/[\w.+-]+@[\w-]+\.[\w.]+/);
  });
});
