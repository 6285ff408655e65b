// Exemplars through the real chain (docs/metrics.md, Exemplars): the simulator → the built exporter
// polling qstash_logs and workflow_runs → Prometheus (Debian's binary, with exemplar storage on, as
// docker-compose.yml runs it) scraping the OpenMetrics answer. Prometheus' /api/v1/query_exemplars
// gives back the message ID of a failed delivery and the run ID of a failed run the simulator served,
// and nothing of an ID past the 128-character limit.
// Run with scripts/stack-test.sh (needs `npm run build` and prometheus).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_QSTASH_TOKEN, startSimulator, type Simulator } from '../../src/demo/simulator.js';
import {
  Procs,
  builtExporter,
  getJson,
  startExporter,
  startPrometheus,
  waitFor,
  type PromServer,
} from '../helpers/stack.js';

const ACCOUNT = 'stack-exemplars';
/** The workflow of the failed run (the simulator's own runs, before it is set, are of others). */
const WORKFLOW = 'https://jobs.example.com/api/stack';
/** A message ID whose exemplar (`message_id` and it) passes 128 characters. */
const LONG_ID = `msg_long_${'x'.repeat(120)}`;

interface ExemplarSeries {
  seriesLabels: Record<string, string>;
  exemplars: { labels: Record<string, string>; value: string; timestamp: number }[];
}

let procs: Procs | undefined;
let simulator: Simulator | undefined;
let prometheus: PromServer;

/** The exemplars Prometheus stored for `selector` over the last ten minutes. */
async function exemplars(selector: string): Promise<ExemplarSeries[]> {
  const end = Date.now() / 1000;
  const body = await getJson<{ status: string; data: ExemplarSeries[] }>(
    `${prometheus.url}/api/v1/query_exemplars?query=${encodeURIComponent(selector)}&start=${end - 600}&end=${end + 60}`,
  );
  return body.data;
}

beforeAll(async () => {
  const stack = (procs = Procs.inTempDir('upstash-stack-exemplars-'));
  simulator = await startSimulator();
  const rulesFile = join(stack.workDir, 'no-rules.yml');
  writeFileSync(rulesFile, 'groups: []\n');
  const exporterUrl = await startExporter(stack, builtExporter(), {
    qstash: [
      {
        name: ACCOUNT,
        url: simulator.url,
        token: DEMO_QSTASH_TOKEN,
        schedule: '* * * * * *',
        events_interval: '1s',
        sources: ['qstash_logs', 'workflow_runs'],
      },
    ],
  });
  prometheus = await startPrometheus(stack, 'prometheus', new URL(exporterUrl).host, rulesFile);
  const sim = simulator;
  // Dated after the exporter started: its counters count from its start.
  const now = Date.now() + 1500;
  sim.setQstashLogs([
    {
      time: now,
      messageId: 'msg_stack_failed',
      state: 'ERROR',
      url: 'https://api.example.com/a',
      responseStatus: 500,
    },
    { time: now, messageId: LONG_ID, state: 'ERROR', url: 'https://long.example.com/a', responseStatus: 500 },
  ]);
  sim.setWorkflowRuns([
    {
      id: 'wfr_stack_failed',
      url: WORKFLOW,
      createdAt: now - 7000,
      completedAt: now,
      outcome: 'RUN_FAILED',
      failureFunction: 'CALLBACK_FAIL',
    },
  ]);
}, 120_000);

afterAll(async () => {
  await procs?.stopAll();
  await simulator?.stop();
  procs?.removeWorkDir();
});

describe('exemplars in a real Prometheus', () => {
  it('reads the message ID of a failed delivery and the run ID of a failed run', async () => {
    const delivery = await waitFor('the delivery error exemplar', 60_000, async () => {
      const found = await exemplars(
        `upstash_qstash_delivery_errors_total{account="${ACCOUNT}", destination="https://api.example.com", queue=""}`,
      );
      return found.some((s) => s.exemplars.length > 0) ? found : undefined;
    });
    // Prometheus may store one exemplar again from a later scrape: the IDs, once each.
    const ids = new Set(delivery.flatMap((s) => s.exemplars.map((e) => e.labels.message_id)));
    expect([...ids]).toEqual(['msg_stack_failed']);
    const [stored] = delivery.flatMap((s) => s.exemplars);
    expect(Number(stored?.value)).toBe(1);

    const run = await waitFor('the failed run exemplar', 60_000, async () => {
      const found = await exemplars(
        `upstash_workflow_runs_finished_total{account="${ACCOUNT}", workflow="${WORKFLOW}", state="failed"}`,
      );
      return found.some((s) => s.exemplars.length > 0) ? found : undefined;
    });
    expect(run.flatMap((s) => s.exemplars.map((e) => e.labels.workflow_run_id))).toEqual([
      'wfr_stack_failed',
    ]);
    // The duration's bucket (7 s: le="15") and the failure callback carry it too.
    const buckets = await exemplars(
      `upstash_workflow_run_duration_seconds_bucket{account="${ACCOUNT}", workflow="${WORKFLOW}", state="failed"}`,
    );
    const withExemplar = buckets.filter((s) => s.exemplars.length > 0);
    expect(withExemplar.map((s) => s.seriesLabels.le)).toEqual(['15']);
    expect(Number(withExemplar[0]?.exemplars[0]?.value)).toBe(7);
    const callbacks = await exemplars(
      `upstash_workflow_failure_callbacks_total{account="${ACCOUNT}", workflow="${WORKFLOW}"}`,
    );
    expect(new Set(callbacks.flatMap((s) => s.exemplars.map((e) => e.labels.workflow_run_id)))).toEqual(
      new Set(['wfr_stack_failed']),
    );
  });

  it('stores no exemplar for an ID past the limit, though its error is counted', async () => {
    const [counted] = await prometheus.query(
      `upstash_qstash_delivery_errors_total{account="${ACCOUNT}", destination="https://long.example.com"}`,
    );
    expect(Number(counted?.value?.[1])).toBe(1);
    const found = await exemplars(
      `upstash_qstash_delivery_errors_total{account="${ACCOUNT}", destination="https://long.example.com"}`,
    );
    expect(found.flatMap((s) => s.exemplars)).toEqual([]);
  });
});
