// A destination's error ratio through the real chain: the simulator → the built exporter polling
// qstash_logs and qstash_deliveries → Prometheus (Debian's binary, loading the recording rules and
// UpstashQStashDestinationErrorRatio from prometheus/alerts.yml) → Alertmanager. A destination turns
// from healthy to failing: the alert fires and reaches Alertmanager; healthy again: it resolves.
// Run with scripts/stack-test.sh (needs `npm run build`, prometheus and prometheus-alertmanager).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as fromYaml, stringify as toYaml } from 'yaml';
import {
  DEMO_DESTINATIONS,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
} from '../../src/demo/simulator.js';
import {
  Procs,
  builtExporter,
  startAlertmanager,
  startExporter,
  startPrometheus,
  waitFor,
  type AmAlert,
  type PromServer,
} from '../helpers/stack.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ACCOUNT = 'stack-ratio';
const ALERT = 'UpstashQStashDestinationErrorRatio';
const RATIO = 'account_destination:upstash_qstash_delivery_error_ratio:rate5m';
/** The simulated billing destination: about 2.5 % of its attempts fail, at most one in 13. */
const BILLING = DEMO_DESTINATIONS[1].url;
const DESTINATION = new URL(BILLING).origin;
/** Its share of failed deliveries while set failing. */
const FAILING_SHARE = 0.5;

interface RuleGroup {
  name: string;
  rules: { record?: string; alert?: string; expr: string; for?: string }[];
}

/**
 * The shipped rules, the error ratio's made fast: its windows 1 minute, not 5 (a series new in the
 * window over 60 s, not 300), the alert's `for:` 2 s, and its threshold 20 %: the healthy destination's
 * own errors (one in a slot of 10 s at most: under 8 % of a minute's attempts) stay below it, while a
 * failing one (50 %) crosses it within a minute. promtool's cases test the shipped 5 % and 15 m.
 */
function fastRatioRules(text: string): string {
  const doc = fromYaml(text) as { groups: RuleGroup[] };
  let recorded = 0;
  let alerts = 0;
  for (const rule of doc.groups.flatMap((g) => g.rules)) {
    if (/^account_destination:upstash_qstash_deliver.*:rate5m$/.test(rule.record ?? '')) {
      rule.expr = rule.expr
        .replaceAll('[5m]', '[1m]')
        .replaceAll('offset 5m', 'offset 1m')
        .replaceAll('/ 300', '/ 60');
      recorded++;
    }
    if (rule.alert === ALERT) {
      if (!rule.expr.includes('> 0.05')) throw new Error(`${ALERT}: no "> 0.05" to raise`);
      rule.expr = rule.expr.replace('> 0.05', '> 0.2');
      rule.for = '2s';
      alerts++;
    }
  }
  if (recorded !== 4 || alerts !== 1)
    throw new Error(`alerts.yml: ${recorded} ratio rules, ${alerts} ${ALERT}`);
  return toYaml(doc);
}

let procs: Procs | undefined;
let simulator: Simulator | undefined;
let prometheus: PromServer;
let alertmanagerAlerts: () => Promise<AmAlert[]>;

function sim(): Simulator {
  if (!simulator) throw new Error('the simulator did not start');
  return simulator;
}

beforeAll(async () => {
  const main = builtExporter();
  const stack = (procs = Procs.inTempDir('upstash-stack-ratio-'));
  const rulesFile = join(stack.workDir, 'alerts-ratio.yml');
  writeFileSync(rulesFile, fastRatioRules(readFileSync(join(root, 'prometheus', 'alerts.yml'), 'utf8')));
  // The generated log: every destination delivering steadily and failing now and then.
  simulator = await startSimulator();

  const exporterUrl = await startExporter(stack, main, {
    qstash: [
      {
        name: ACCOUNT,
        url: sim().url,
        token: DEMO_QSTASH_TOKEN,
        schedule: '* * * * * *',
        events_interval: '1s',
        sources: ['qstash_logs', 'qstash_deliveries'],
      },
    ],
  });

  const alertmanager = await startAlertmanager(stack);
  alertmanagerAlerts = alertmanager.alerts;
  prometheus = await startPrometheus(
    stack,
    'prometheus',
    new URL(exporterUrl).host,
    rulesFile,
    alertmanager.port,
  );
  await waitFor('both event sources up', 30_000, async () => {
    const up = await prometheus.query(`upstash_up{account="${ACCOUNT}"} == 1`);
    return up.length === 2 ? true : undefined;
  });
}, 120_000);

afterAll(async () => {
  await procs?.stopAll();
  await simulator?.stop();
  procs?.removeWorkDir();
});

/** The recorded ratio of the billing destination now, or undefined while there is none. */
async function billingRatio(): Promise<number | undefined> {
  const [series] = await prometheus.query(`${RATIO}{account="${ACCOUNT}", destination="${DESTINATION}"}`);
  return series?.value === undefined ? undefined : Number(series.value[1]);
}

/** Whether Alertmanager holds the billing destination's ratio alert, active. */
async function alerting(): Promise<boolean> {
  return (await alertmanagerAlerts()).some(
    (a) =>
      a.labels.alertname === ALERT &&
      a.labels.destination === DESTINATION &&
      a.labels.account === ACCOUNT &&
      Date.parse(a.endsAt) > Date.now(),
  );
}

describe('the error ratio of a destination, healthy → failing → healthy', () => {
  it('healthy: the ratio is recorded, low, and nothing fires for it', async () => {
    // A minute of deliveries in the window, so that the ratio is that of the whole window.
    const ratio = await waitFor('a full minute of the billing ratio', 90_000, async () => {
      const [oldest] = await prometheus.query(
        `min_over_time(timestamp(upstash_qstash_deliveries_total{account="${ACCOUNT}"})[2m:1s])`,
      );
      const since = oldest?.value === undefined ? Infinity : Number(oldest.value[1]);
      return Date.now() / 1000 - since > 65 ? billingRatio() : undefined;
    });
    expect(ratio).toBeLessThan(0.1);
    const fired = await prometheus.query(
      `last_over_time(ALERTS{alertname="${ALERT}", destination="${DESTINATION}"}[1m])`,
    );
    expect(fired).toEqual([]);
    expect(await alerting()).toBe(false);
  }, 120_000);

  it('failing: half its deliveries fail, the ratio rises and the alert reaches Alertmanager', async () => {
    sim().setDestinationFailing(BILLING, FAILING_SHARE);
    await waitFor(`${ALERT} for ${DESTINATION} in Alertmanager`, 120_000, async () =>
      (await alerting()) ? true : undefined,
    );
    expect(await billingRatio()).toBeGreaterThan(0.2);
    const [firing] = await prometheus.query(`ALERTS{alertname="${ALERT}", alertstate="firing"}`);
    expect(firing?.metric).toMatchObject({ account: ACCOUNT, destination: DESTINATION, severity: 'warning' });
  }, 150_000);

  it('healthy again: the ratio falls and the alert resolves', async () => {
    sim().setDestinationFailing(BILLING, null);
    await waitFor(`${ALERT} for ${DESTINATION} to resolve`, 120_000, async () => {
      const pending = await prometheus.query(`ALERTS{alertname="${ALERT}", destination="${DESTINATION}"}`);
      return pending.length === 0 && !(await alerting()) ? true : undefined;
    });
    // Resolved as the ratio reaches the threshold; it goes on falling below it.
    const ratio = await waitFor('the ratio below 0.2', 60_000, async () => {
      const now = await billingRatio();
      return now !== undefined && now < 0.2 ? now : undefined;
    });
    expect(ratio).toBeLessThan(0.2);
  }, 150_000);
});
