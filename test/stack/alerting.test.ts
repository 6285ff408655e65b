// The real chain: fake Upstash (the simulator) → the built exporter → Prometheus (Debian's binary,
// loading prometheus/alerts.yml) → Alertmanager. Run with `npx vitest run --config vitest.stack.config.ts`
// after `npm run build`; it needs `prometheus` and `prometheus-alertmanager` (Debian packages).
//
// Two Prometheus servers scrape the same exporter (scrapes cost Upstash nothing):
//   - "real" loads alerts.yml as shipped and sends to no one: its alerts can only get as far as pending
//     within the test, which is what the user would see in the first minutes of an outage;
//   - "fast" loads a copy whose `for:` durations are cut to 2 s and sends to Alertmanager, so firing
//     alerts can be seen arriving through Alertmanager's API.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_DATABASES,
  DEMO_EMAIL,
  DEMO_QSTASH_INSTANCES,
  DEMO_QSTASH_TOKEN,
  startSimulator,
} from '../../src/demo/simulator.js';
import type { ScheduleEntry, Simulator } from '../../src/demo/simulator.js';
import { DEMO_TEAMS } from '../../src/demo/team-roster.js';
import {
  Procs,
  builtExporter,
  findProgram,
  sleep,
  startAlertmanager,
  startExporter,
  startPrometheus,
  waitFor,
  type AmAlert,
  type PromServer,
  type Series,
} from '../helpers/stack.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ACCOUNT = 'stack';
const GROWING_KEY = 'stack-test-growing';
const FAST_FOR = '2s';
/**
 * Sources polled: the nine QStash ones (the two DLQs and the two event sources included), the
 * databases listing, redis_stats and redis_backups per database, qstash_users and one instance's
 * qstash_stats, and the account's safety (audit_logs, teams, qstash_egress_ips).
 */
const SOURCES = 9 + 1 + 2 * DEMO_DATABASES.length + 2 + 3;
const FAILING_SCHEDULE = 'scd_stack-test-failing';

/** A schedule as QStash lists it, running every minute; `failed` makes its last run end in FAIL. */
function stackSchedule(id: string, failed: boolean): ScheduleEntry[] {
  const now = Date.now();
  return [
    {
      scheduleId: id,
      cron: '* * * * *',
      destination: 'https://example.com/hook',
      createdAt: now - 86_400_000,
      method: 'POST',
      isPaused: false,
      lastScheduleTime: now - 30_000,
      nextScheduleTime: now + 30_000,
      lastScheduleStates: { msg_1: failed ? 'FAIL' : 'SUCCESS' },
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Helpers

function describeAlerts(series: readonly Series[]): string[] {
  return series.map((s) => {
    const { alertname = '?', alertstate = '?', ...labels } = s.metric;
    delete labels.__name__;
    return `${alertname} ${alertstate} ${JSON.stringify(labels)}`;
  });
}

// ---------------------------------------------------------------------------------------------------
// The stack

let simulator: Simulator | undefined;
function sim(): Simulator {
  if (!simulator) throw new Error('the simulator did not start');
  return simulator;
}
let procs: Procs | undefined;
let exporterUrl = '';
let real: PromServer;
let fast: PromServer;
let alertmanagerAlerts: () => Promise<AmAlert[]>;

/** The rules as shipped, with every `for:` cut short (thresholds and windows unchanged). */
function fastRules(text: string): string {
  const out = text.replace(/^(\s+for:\s*)\S+/gm, `$1${FAST_FOR}`);
  if (out === text) throw new Error('alerts.yml has no `for:` to shorten');
  return out;
}

beforeAll(async () => {
  // Fail (never skip) when something the test needs is missing.
  findProgram('ALERTMANAGER_BIN', ['prometheus-alertmanager', 'alertmanager']);
  findProgram('PROMETHEUS_BIN', ['prometheus']);
  const main = builtExporter();

  const stack = (procs = Procs.inTempDir('upstash-stack-'));
  simulator = await startSimulator();
  // QStash data that is healthy and stays so (the demo's own data shows backlog, failures and a plan
  // near its limits on purpose): the silence test needs none of them, and each alert case makes its own.
  sim().setFlowControl([
    {
      flowControlKey: 'stack-steady',
      waitListSize: 3,
      parallelismMax: 10,
      parallelismCount: 2,
      rateMax: 100,
      rateCount: 5,
      ratePeriod: 60,
    },
  ]);
  sim().setQueues([
    { name: 'stack-queue', createdAt: 1, updatedAt: 1, parallelism: 2, paused: false, lag: 7 },
  ]);
  sim().setSchedules(stackSchedule('scd_stack-test-healthy', false));
  sim().setGlobalParallelism({ parallelismMax: 50, parallelismCount: 12 });
  sim().setQstashInstances([{ ...DEMO_QSTASH_INSTANCES[0]!, maxDlqSize: 100_000, dlqPerMinute: 0 }]);
  // No delivery error, workflow run or audit event yet (the demo's failing destinations, stuck run and
  // deletions are incidents on purpose), one steady team and steady egress ranges: the dashboard test
  // adds the events it needs once the silence is checked.
  sim().setQstashLogs([]);
  sim().setWorkflowRuns([]);
  sim().setAuditLog([]);
  sim().setTeams(DEMO_TEAMS.filter((team) => team.name === 'data'));
  sim().setEgressRanges(['203.0.113.0/24', '198.51.100.0/24']);

  // The exporter, polling every second.
  exporterUrl = await startExporter(stack, main, {
    qstash: [
      {
        name: ACCOUNT,
        url: sim().url,
        token: DEMO_QSTASH_TOKEN,
        schedule: '* * * * * *',
        // The DLQs and the event sources too, not on their 5m and 1m defaults: a fault must reach every
        // source within seconds, and the dashboard's rates need events in their window.
        dlq_interval: '1s',
        events_interval: '1s',
        // Labels to count by, for the dashboard's row "By your labels" (its deliveries panel needs
        // qstash_deliveries, not polled here: left to the lead).
        // tenant-a: the simulator's runs of other workflows carry it.
        labels: ['stack-label', 'tenant-a'],
      },
    ],
    management: [
      {
        name: ACCOUNT,
        url: sim().url,
        email: DEMO_EMAIL,
        api_key: DEMO_API_KEY,
        databases: [...DEMO_DATABASES],
        schedule: '* * * * * *',
        // The account view's sources and the backups: the demo's indexes sit near their limits on purpose.
        sources: [
          'databases',
          'redis_stats',
          'redis_backups',
          'qstash_users',
          'qstash_stats',
          'audit_logs',
          'teams',
          'qstash_egress_ips',
        ],
        backups_interval: '1s',
        audit_interval: '1s',
      },
    ],
  });

  // Alertmanager, without clustering.
  const alertmanager = await startAlertmanager(stack);
  alertmanagerAlerts = alertmanager.alerts;

  // The rules as shipped, and the fast copy.
  const shipped = join(root, 'prometheus', 'alerts.yml');
  const fastFile = join(stack.workDir, 'alerts-fast.yml');
  writeFileSync(fastFile, fastRules(readFileSync(shipped, 'utf8')));
  [real, fast] = await Promise.all([
    startPrometheus(stack, 'prometheus-real', new URL(exporterUrl).host, shipped),
    startPrometheus(stack, 'prometheus-fast', new URL(exporterUrl).host, fastFile, alertmanager.port),
  ]);

  // Data flowing: every source of the exporter is up in both servers.
  const sources = SOURCES;
  for (const prom of [real, fast]) {
    await waitFor(`${prom.name} to scrape ${sources} sources up`, 30_000, async () => {
      const up = await prom.query(`upstash_up{account="${ACCOUNT}"} == 1`);
      return up.length === sources ? true : undefined;
    });
  }
}, 120_000);

afterAll(async () => {
  await procs?.stopAll();
  await simulator?.stop();
  procs?.removeWorkDir();
});

// ---------------------------------------------------------------------------------------------------

describe('Prometheus → Alertmanager chain on the fake Upstash', () => {
  it('stays silent on healthy data: nothing pending or firing in either server, nothing in Alertmanager', async () => {
    // Rules with rate/increase windows need some samples; then watch several evaluation cycles.
    await sleep(5000);
    await Promise.all([real.waitForEvaluations(5), fast.waitForEvaluations(5)]);
    for (const prom of [real, fast]) {
      // Anything that was pending or firing at any point of the last minute shows up here.
      const recent = await prom.query('last_over_time(ALERTS[1m])');
      expect(describeAlerts(recent), `${prom.name} ALERTS`).toEqual([]);
    }
    expect(await alertmanagerAlerts()).toEqual([]);
    // The hit-ratio recording rule has data (the simulator has read traffic) and is in range.
    const ratio = await real.query('account_database_id:upstash_redis_hit:ratio');
    expect(ratio.length).toBe(DEMO_DATABASES.length);
    for (const s of ratio) expect(Number(s.value?.[1])).toBeGreaterThan(0.8);
  });

  it('on 401 from Upstash: auth and source alerts go pending, and with a short `for` reach Alertmanager', async () => {
    sim().setFault('all', { kind: 'status', status: 401 });
    const sources = SOURCES;
    const expected = ['UpstashAuthFailures', 'UpstashSourceDown'];

    // Through the fast server to Alertmanager: both alerts, for every source.
    const received = await waitFor(
      'UpstashAuthFailures and UpstashSourceDown in Alertmanager',
      60_000,
      async () => {
        const alerts = (await alertmanagerAlerts()).filter((a) => a.labels.account === ACCOUNT);
        const count = (name: string): number => alerts.filter((a) => a.labels.alertname === name).length;
        return expected.every((n) => count(n) === sources) ? alerts : undefined;
      },
    );
    for (const a of received) {
      expect(a.status.state).toBe('active');
      expect(a.labels.job).toBe('upstash');
    }
    const auth = received.filter((a) => a.labels.alertname === 'UpstashAuthFailures');
    expect(new Set(auth.map((a) => a.labels.severity))).toEqual(new Set(['critical']));
    expect(new Set(auth.map((a) => a.labels.source))).toEqual(
      new Set([
        'flow_control',
        'url_groups',
        'queues',
        'schedules',
        'global_parallelism',
        'databases',
        'redis_stats',
        'qstash_users',
        'qstash_stats',
        'dlq',
        'workflow_dlq',
        'redis_backups',
        'qstash_logs',
        'workflow_runs',
        'audit_logs',
        'teams',
        'qstash_egress_ips',
      ]),
    );
    // Nothing else fired: the exporter itself stays up and serves /metrics.
    expect(new Set(received.map((a) => a.labels.alertname))).toEqual(new Set(expected));

    // With the shipped `for:` (minutes), the same alerts are pending, not firing.
    // (Waited for, not read once: the two servers scrape and evaluate on their own clocks.)
    const pending = await waitFor(
      'both alerts pending for every source in the real server',
      15_000,
      async () => {
        const alerts = await real.query('ALERTS');
        return alerts.length === 2 * sources ? alerts : undefined;
      },
    );
    const states = new Set(describeAlerts(pending).map((d) => d.split(' ').slice(0, 2).join(' ')));
    expect(states).toEqual(new Set(expected.map((n) => `${n} pending`)));

    // Credentials fixed: both resolve at the next poll.
    sim().setFault('all', null);
    await waitFor('the auth and source alerts to resolve', 30_000, async () => {
      const [r, f] = await Promise.all([real.query('ALERTS'), fast.query('ALERTS')]);
      return r.length === 0 && f.length === 0 ? true : undefined;
    });
    await waitFor('Alertmanager to see them resolved', 30_000, async () =>
      (await alertmanagerAlerts()).every((a) => Date.parse(a.endsAt) <= Date.now()) ? true : undefined,
    );
  });

  it('on a steadily growing wait list: UpstashQStashWaitListGrowing goes pending and reaches Alertmanager', async () => {
    // 100 messages per second: over the 100-message floor within two seconds.
    sim().setWaitListGrowth(GROWING_KEY, 6000);
    const alert = await waitFor('UpstashQStashWaitListGrowing in Alertmanager', 60_000, async () =>
      (await alertmanagerAlerts()).find(
        (a) =>
          a.labels.alertname === 'UpstashQStashWaitListGrowing' &&
          a.labels.flow_control_key === GROWING_KEY &&
          Date.parse(a.endsAt) > Date.now(),
      ),
    );
    expect(alert.labels).toMatchObject({ severity: 'warning', account: ACCOUNT, job: 'upstash' });

    const pending = await waitFor(
      'UpstashQStashWaitListGrowing pending in the real server',
      15_000,
      async () => {
        const alerts = await real.query('ALERTS{alertname="UpstashQStashWaitListGrowing"}');
        return alerts.length > 0 ? alerts : undefined;
      },
    );
    expect(describeAlerts(pending)).toEqual([
      `UpstashQStashWaitListGrowing pending ${JSON.stringify({
        account: ACCOUNT,
        flow_control_key: GROWING_KEY,
        instance: new URL(exporterUrl).host,
        job: 'upstash',
        severity: 'warning',
      })}`,
    ]);
    // Only this key alerts; the simulator's other keys stay small and quiet.
    const others = (await fast.query('ALERTS')).filter((s) => s.metric.flow_control_key !== GROWING_KEY);
    expect(describeAlerts(others)).toEqual([]);
    sim().setWaitListGrowth(GROWING_KEY, null);
  });

  it('on a schedule whose last run failed: UpstashQStashScheduleFailed goes pending and reaches Alertmanager', async () => {
    sim().setSchedules(stackSchedule(FAILING_SCHEDULE, true));
    const alert = await waitFor('UpstashQStashScheduleFailed in Alertmanager', 60_000, async () =>
      (await alertmanagerAlerts()).find(
        (a) =>
          a.labels.alertname === 'UpstashQStashScheduleFailed' &&
          a.labels.schedule_id === FAILING_SCHEDULE &&
          Date.parse(a.endsAt) > Date.now(),
      ),
    );
    expect(alert.labels).toMatchObject({ severity: 'warning', account: ACCOUNT, job: 'upstash' });
    const pending = await waitFor(
      'UpstashQStashScheduleFailed pending in the real server',
      15_000,
      async () => {
        const alerts = await real.query('ALERTS{alertname="UpstashQStashScheduleFailed"}');
        return alerts.length > 0 ? alerts : undefined;
      },
    );
    expect(describeAlerts(pending)).toEqual([
      `UpstashQStashScheduleFailed pending ${JSON.stringify({
        account: ACCOUNT,
        // The schedule's cron, joined from upstash_qstash_schedule_info (the destination is not exported).
        cron: '* * * * *',
        instance: new URL(exporterUrl).host,
        job: 'upstash',
        schedule_id: FAILING_SCHEDULE,
        severity: 'warning',
      })}`,
    ]);
    // The next run succeeds: the alert resolves.
    sim().setSchedules(stackSchedule(FAILING_SCHEDULE, false));
    await waitFor('the schedule alert to resolve', 30_000, async () => {
      const alerts = await fast.query('ALERTS{alertname="UpstashQStashScheduleFailed"}');
      return alerts.length === 0 ? true : undefined;
    });
  });

  it('runs every query of every dashboard without error; each returns data but the index panels', async () => {
    const dir = join(root, 'grafana', 'dashboards');
    const exprs: { where: string; expr: string }[] = [];
    const perDashboard = new Map<string, number>();
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      const dashboard = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        panels: { title: string; type: string; targets?: { refId: string; expr: string }[] }[];
        templating: { list: { name: string; type: string; query?: string | { query?: string } }[] };
      };
      // Every variable of the dashboard matches anything; the longest name first ($database_id
      // before $database).
      const names = dashboard.templating.list.map((v) => v.name).sort((a, b) => b.length - a.length);
      const substitute = (expr: string): string => {
        let out = expr.replaceAll('$__rate_interval', '1m');
        for (const name of names) out = out.replaceAll(`\${${name}}`, '.*').replaceAll(`$${name}`, '.*');
        if (out.includes('$')) throw new Error(`${file}: unsubstituted variable in: ${expr}`);
        return out;
      };
      const own = dashboard.panels.flatMap((p) =>
        (p.targets ?? []).map((t) => ({
          where: `${file} panel "${p.title}" ${t.refId}`,
          expr: substitute(t.expr),
        })),
      );
      // Variable queries: label_values(selector, label) is a series lookup, query_result(expr) a query.
      for (const v of dashboard.templating.list.filter((x) => x.type === 'query')) {
        const q = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
        const selector =
          /^label_values\((.*),\s*\w+\)$/.exec(q)?.[1] ?? /^query_result\((.*)\)$/.exec(q)?.[1];
        if (selector === undefined) throw new Error(`${file}: variable ${v.name}: unexpected query ${q}`);
        own.push({ where: `${file} variable ${v.name}`, expr: substitute(selector) });
      }
      perDashboard.set(file, own.length);
      exprs.push(...own);
    }
    // Both dashboards, each with its panels' queries (upstash.json 113, upstash-platform.json 42).
    expect([...perDashboard.keys()].sort()).toEqual(['upstash-platform.json', 'upstash.json']);
    expect(perDashboard.get('upstash.json')).toBeGreaterThan(100);
    expect(perDashboard.get('upstash-platform.json')).toBeGreaterThan(40);
    // Last, as it makes incidents: the event sources count from the exporter's start, and the other
    // cases wanted none (a FAILED delivery fires UpstashQStashDeliveriesFailed). A delivery error and a
    // failure, a finished run and one in progress, an audit event, all from now on.
    const now = Date.now();
    const logs: Record<string, unknown>[] = [
      {
        time: now,
        messageId: 'stack-1',
        state: 'ERROR',
        url: 'https://api.example.com/a',
        responseStatus: 500,
        labels: ['stack-label'],
      },
      { time: now, messageId: 'stack-2', state: 'FAILED', url: 'https://api.example.com/a', queueName: 'q' },
      {
        time: now,
        messageId: 'stack-4',
        state: 'DELIVERED',
        url: 'https://api.example.com/a',
        labels: ['stack-label'],
      },
    ];
    sim().setQstashLogs(logs);
    sim().setWorkflowRuns([
      {
        id: 'wfr_stack_done',
        url: 'https://jobs.example.com/api/stack',
        createdAt: now - 3000,
        completedAt: now,
        outcome: 'RUN_SUCCESS',
      },
      {
        id: 'wfr_stack_running',
        url: 'https://jobs.example.com/api/stack',
        createdAt: now,
        completedAt: undefined,
        outcome: 'RUN_SUCCESS',
      },
    ]);
    sim().setAuditLog([
      {
        log_id: 'stack-1',
        timestamp: Math.floor(now / 1000) + 1,
        action_string: 'Create Database',
        source: 'API_KEY - ci',
      },
    ]);
    for (const name of [
      'upstash_qstash_delivery_errors_total',
      'upstash_qstash_deliveries_failed_total',
      'upstash_workflow_run_duration_seconds_bucket',
      'upstash_workflow_oldest_run_start_timestamp_seconds',
      'upstash_audit_events_total',
    ])
      await waitFor(`${name} in the real server`, 30_000, async () =>
        (await real.query(`${name}{job="upstash"}`)).length > 0 ? true : undefined,
      );
    // The error ratio is of attempts per second: a second error, once the first was scraped, gives the
    // destination a rate above 0 (a series new in the window counts at its value only after 5 minutes).
    logs.push({ ...logs[0]!, time: Date.now(), messageId: 'stack-3' });
    sim().setQstashLogs(logs);
    await waitFor('the delivery error ratio in the real server', 30_000, async () =>
      (await real.query('account_destination:upstash_qstash_delivery_error_ratio:rate5m')).length > 0
        ? true
        : undefined,
    );
    // A rate needs two samples of the new counters in its window.
    await sleep(3000);
    // Every query runs (a PromQL error throws). The Vector and Search panels may be empty: this
    // exporter leaves the index sources off, as the demo's indexes sit near their limits on purpose
    // and would fire the alerts that the silence case above forbids. So may the deliveries by label:
    // qstash_deliveries is not listed in this stack, whose 401 case above expects the alerts of its
    // sources (test/stack/error-ratio.test.ts polls it; test/sources/listed-labels.test.ts counts it).
    const indexFamilies = /\bupstash_(vector|search)_/;
    const offHere = /\bupstash_qstash_label_deliveries_total\b/;
    const empty: string[] = [];
    let ranIndexQueries = 0;
    let ranOffQueries = 0;
    for (const { where, expr } of exprs) {
      const result = await real.query(expr); // throws on a PromQL error
      if (indexFamilies.test(expr)) ranIndexQueries++;
      else if (offHere.test(expr)) ranOffQueries++;
      else if (result.length === 0) empty.push(`${where}: ${expr}`);
    }
    expect(empty).toEqual([]);
    expect(ranIndexQueries).toBeGreaterThan(30);
    expect(ranOffQueries).toBeGreaterThan(0);
  });
});
