import { describe, expect, it } from 'vitest';
import { DEMO_EVENT_SECRET, DEMO_WORKFLOWS } from '../../src/demo/simulator.js';
import { listedLabels } from '../../src/upstash/listed-labels.js';
import { valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { eventually, leakedSecret, useHarness } from '../helpers/harness.js';

// A qstash entry's labels: and the exemplars end to end (docs/metrics.md, Your own labels, and
// Exemplars): the real exporter polls the simulator's events written out here, and is scraped in
// both formats. A label value that is not listed carries the simulator's secret: it must appear
// nowhere the exporter writes (/metrics, the landing page, the logs at debug).

const OPENMETRICS = { Accept: 'application/openmetrics-text; version=1.0.0' };
const API = 'https://api.example.com';
const MARKER = `tenant-${DEMO_EVENT_SECRET}`;
/** A message ID whose exemplar (`message_id` and it) passes 128 characters by one. */
const LONG_ID = `msg_${'x'.repeat(128 - 'message_id'.length - 3)}`;

function log(time: number, messageId: string, state: string, fields: Record<string, unknown>) {
  return { time, messageId, state, url: `${API}/hook`, responseStatus: 500, ...fields };
}

const start = useHarness({
  qstashSources: ['qstash_logs', 'qstash_deliveries', 'workflow_runs'],
  labels: ['checkout', 'tenant-a'],
});

const labelled = (s: ParsedSample[], name: string, labels: Record<string, string>) =>
  valueOf(s, name, { account: 'eu', ...labels });

describe('listedLabels', () => {
  it('takes the listed values of labels, else of the older label, once each in the list order', () => {
    const allowed = ['a', 'b'];
    expect(listedLabels({ labels: ['b', 'x', 'a', 'a'] }, allowed)).toEqual(['a', 'b']);
    expect(listedLabels({ label: 'b' }, allowed)).toEqual(['b']);
    expect(listedLabels({ labels: [], label: 'a' }, allowed)).toEqual(['a']);
    expect(listedLabels({ labels: ['a'], label: 'b' }, allowed)).toEqual(['a']);
    expect(listedLabels({ labels: ['x', 7, null] }, allowed)).toBeUndefined();
    expect(listedLabels({ labels: 'a' }, allowed)).toBeUndefined();
    expect(listedLabels({ labels: ['a'] }, [])).toBeUndefined();
  });
});

describe('labels and exemplars end to end', () => {
  it('counts events labelled a, b, both and by the older label, under each listed label only', async () => {
    const harness = await start();
    const T = Date.now() + 1500;
    harness.sim.setQstashLogs([
      log(T, 'm1', 'ERROR', { labels: ['checkout'] }),
      log(T, 'm2', 'ERROR', { labels: ['tenant-a', MARKER] }),
      log(T + 1, 'm3', 'ERROR', { labels: ['checkout', 'tenant-a'] }),
      log(T + 1, 'm4', 'ERROR', { label: 'checkout' }),
      log(T + 2, 'm5', 'ERROR', { labels: [MARKER] }),
      log(T + 2, 'm6', 'ERROR', { labels: [], label: 'tenant-a' }),
      log(T + 3, LONG_ID, 'ERROR', { url: 'https://long.example.com/x', labels: ['checkout'] }),
      log(T + 3, 'm7', 'FAILED', { labels: ['checkout'] }),
      log(T + 4, 'd1', 'DELIVERED', { labels: ['tenant-a', MARKER] }),
    ]);
    harness.sim.setWorkflowRuns([
      // The simulator labels an opening run with both listed labels, the report workflow's with the
      // older label string checkout, any other with tenant-a (and the secret).
      {
        id: 'wfr_demo_opening_x',
        url: DEMO_WORKFLOWS[0].url,
        createdAt: T - 5000,
        completedAt: T,
        outcome: 'RUN_FAILED',
        failureFunction: 'CALLBACK_FAIL',
      },
      {
        id: 'wfr_r',
        url: DEMO_WORKFLOWS[1].url,
        createdAt: T - 2000,
        completedAt: T + 1,
        outcome: 'RUN_SUCCESS',
      },
      {
        id: 'wfr_o',
        url: DEMO_WORKFLOWS[0].url,
        createdAt: T - 1000,
        completedAt: T + 2,
        outcome: 'RUN_FAILED',
        failureFunction: null,
      },
    ]);
    const s = await eventually('every event counted', async () => {
      const { samples } = await harness.scrape();
      const runs = samples
        .filter((x) => x.name === 'upstash_workflow_runs_finished_total')
        .reduce((sum, x) => sum + x.value, 0);
      return labelled(samples, 'upstash_qstash_label_deliveries_total', { label: 'tenant-a' }) === 1 &&
        labelled(samples, 'upstash_qstash_label_delivery_errors_total', {
          label: 'checkout',
          state: 'FAILED',
        }) === 1 &&
        runs === 3
        ? samples
        : undefined;
    });
    const errors = (label: string) =>
      labelled(s, 'upstash_qstash_label_delivery_errors_total', { label, state: 'ERROR' });
    expect(errors('checkout')).toBe(4); // m1, m3, m4 (label string), the long ID
    expect(errors('tenant-a')).toBe(3); // m2, m3, m6 (empty labels: the label string)
    const runs = (label: string, state: string) =>
      labelled(s, 'upstash_workflow_label_runs_finished_total', { label, state });
    expect(runs('checkout', 'failed')).toBe(1);
    expect(runs('tenant-a', 'failed')).toBe(2);
    expect(runs('checkout', 'success')).toBe(1);
    // Only listed values, ever: one series per listed value and state.
    const labelValues = new Set(s.filter((x) => x.labels.label !== undefined).map((x) => x.labels.label));
    expect([...labelValues].sort()).toEqual(['checkout', 'tenant-a']);

    const text = (await harness.get('/metrics')).body;
    const open = await harness.get('/metrics', OPENMETRICS);
    expect(open.headers['content-type']).toMatch(/openmetrics/);
    // The text format carries no exemplar.
    expect(text).not.toContain(' # {');
    // OpenMetrics: the newest event of each series; the newest run's duration (1.002 s) on the least
    // bucket at or above it, le="5".
    expect(open.body).toMatch(
      /^upstash_qstash_delivery_errors_total\{account="eu",destination="https:\/\/api\.example\.com",[^}]*code="500"\} 6 # \{message_id="m6"\} 1 [0-9.]+$/m,
    );
    expect(open.body).toMatch(
      new RegExp(
        `^upstash_workflow_runs_finished_total\\{[^}]*state="failed"\\} 2 # \\{workflow_run_id="wfr_o"\\} 1 ${(T + 2) / 1000}$`,
        'm',
      ),
    );
    expect(open.body).toMatch(
      /^upstash_workflow_run_duration_seconds_bucket\{[^}]*state="failed",le="5"\} 2 # \{workflow_run_id="wfr_o"\} 1\.002 [0-9.]+$/m,
    );
    expect(open.body).toMatch(
      /^upstash_workflow_failure_callbacks_total\{[^}]*state="CALLBACK_FAIL"\} 1 # \{workflow_run_id="wfr_demo_opening_x"\} 1 [0-9.]+$/m,
    );
    // An ID past the limit: counted, no exemplar (and never cut).
    expect(open.body).toMatch(/^upstash_qstash_delivery_errors_total\{[^}]*long\.example\.com[^}]*\} 1$/m);
    expect(open.body).not.toContain(LONG_ID.slice(0, 40));
    // The secret label value nowhere: /metrics in both formats, the landing page, the logs at debug.
    const page = (await harness.get('/')).body;
    for (const [where, written] of Object.entries({
      text,
      openmetrics: open.body,
      page,
      logs: harness.logs.join('\n'),
    }))
      expect(leakedSecret(written), where).toBeUndefined();
  });

  it('gives no exemplar with exemplars: false, and no label family without labels:', async () => {
    const harness = await start({ exemplars: false, labels: [] });
    const T = Date.now() + 1500;
    harness.sim.setQstashLogs([log(T, 'm1', 'ERROR', { labels: ['checkout'] })]);
    const body = await eventually('the error counted', async () => {
      const reply = await harness.get('/metrics', OPENMETRICS);
      return reply.body.includes('upstash_qstash_delivery_errors_total{') ? reply.body : undefined;
    });
    expect(body).not.toContain(' # {');
    expect(body).not.toMatch(/upstash_(qstash|workflow)_label_/);
  });
});
