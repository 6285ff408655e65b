// The real chain: fake Upstash (the simulator) → the built exporter → Prometheus (Debian's binary,
// loading prometheus/alerts.yml) → Alertmanager. Run with `npx vitest run --config vitest.stack.config.ts`
// after `npm run build`; it needs `prometheus` and `prometheus-alertmanager` (Debian packages).
//
// Two Prometheus servers scrape the same exporter (scrapes cost Upstash nothing):
//   - "real" loads alerts.yml as shipped and sends to no one: its alerts can only get as far as pending
//     within the test, which is what the user would see in the first minutes of an outage;
//   - "fast" loads a copy whose `for:` durations are cut to 2 s and sends to Alertmanager, so firing
//     alerts can be seen arriving through Alertmanager's API.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  accessSync,
  constants,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
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

/** The absolute path of a program: an env override, else the first match on PATH. Fails loudly. */
function findProgram(envVar: string, names: readonly string[]): string {
  const override = process.env[envVar];
  const candidates = override
    ? [override]
    : names.flatMap((n) => (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, n)));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // try the next one
    }
  }
  throw new Error(
    `${names.join(' or ')} not found${override ? ` at ${envVar}=${override}` : ' on PATH'}: install Debian's ` +
      `prometheus and prometheus-alertmanager packages (scripts/stack-test.sh does), or set ${envVar}`,
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(250);
  }
}

interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
}

const procs: Proc[] = [];
let workDir = '';

function start(name: string, command: string, args: readonly string[]): Proc {
  const logFile = join(workDir, `${name}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(command, args, { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const proc = { name, child, logFile };
  procs.push(proc);
  return proc;
}

function tail(proc: Proc, lines = 30): string {
  try {
    return readFileSync(proc.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function stopAll(): Promise<void> {
  await Promise.all(
    procs.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
  return JSON.parse(body) as T;
}

async function isOk(url: string): Promise<true | undefined> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok ? true : undefined;
}

interface Series {
  metric: Record<string, string>;
  value?: [number, string];
}

interface PromResponse {
  status: string;
  data: { resultType: string; result: Series[] };
  error?: string;
}

class PromServer {
  constructor(
    readonly name: string,
    readonly url: string,
    readonly proc: Proc,
  ) {}

  async query(expr: string): Promise<Series[]> {
    const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`, {
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json()) as PromResponse;
    if (body.status !== 'success')
      throw new Error(`${this.name} query failed: ${body.error ?? res.status}: ${expr}`);
    return body.data.result;
  }

  /** Latest evaluation time of every rule group, in Unix seconds (the oldest of them). */
  async lastEvaluation(): Promise<number> {
    const rules = await getJson<{ data: { groups: { name: string; lastEvaluation: string }[] } }>(
      `${this.url}/api/v1/rules`,
    );
    const times = rules.data.groups.map((g) => Date.parse(g.lastEvaluation) / 1000);
    return times.length === 0 ? 0 : Math.min(...times);
  }

  /** Waits until every rule group has been evaluated `cycles` more times (at 1 s per cycle). */
  async waitForEvaluations(cycles: number): Promise<void> {
    const since = Date.now() / 1000 + cycles;
    await waitFor(
      `${this.name} to evaluate its rules ${cycles} more times`,
      cycles * 1000 + 10_000,
      async () => ((await this.lastEvaluation()) >= since ? true : undefined),
    );
  }
}

interface AmAlert {
  labels: Record<string, string>;
  status: { state: string };
  endsAt: string;
}

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
let exporterUrl = '';
let real: PromServer;
let fast: PromServer;
let alertmanagerUrl = '';
let exporter: Proc;

/** The rules as shipped, with every `for:` cut short (thresholds and windows unchanged). */
function fastRules(text: string): string {
  const out = text.replace(/^(\s+for:\s*)\S+/gm, `$1${FAST_FOR}`);
  if (out === text) throw new Error('alerts.yml has no `for:` to shorten');
  return out;
}

async function startPrometheus(
  name: string,
  rulesFile: string,
  alertmanagerPort?: number,
): Promise<PromServer> {
  const binary = findProgram('PROMETHEUS_BIN', ['prometheus']);
  const port = await freePort();
  const exporterTarget = new URL(exporterUrl).host;
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [rulesFile],
    ...(alertmanagerPort === undefined
      ? {}
      : {
          alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${alertmanagerPort}`] }] }] },
        }),
    scrape_configs: [{ job_name: 'upstash', static_configs: [{ targets: [exporterTarget] }] }],
  };
  const configFile = join(workDir, `${name}.yml`);
  writeFileSync(configFile, toYaml(config));
  const proc = start(name, binary, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(workDir, `${name}-data`)}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const server = new PromServer(name, `http://127.0.0.1:${port}`, proc);
  await waitFor(`${name} to be ready`, 30_000, async () => {
    if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${tail(proc)}`);
    return isOk(`${server.url}/-/ready`);
  });
  return server;
}

beforeAll(async () => {
  // Fail (never skip) when something the test needs is missing.
  const alertmanagerBin = findProgram('ALERTMANAGER_BIN', ['prometheus-alertmanager', 'alertmanager']);
  findProgram('PROMETHEUS_BIN', ['prometheus']);
  const main = join(root, 'dist', 'main.js');
  try {
    accessSync(main, constants.R_OK);
  } catch {
    throw new Error(`${main} does not exist: run \`npm run build\` first`);
  }

  workDir = mkdtempSync(join(tmpdir(), 'upstash-stack-'));
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
  const exporterPort = await freePort();
  exporterUrl = `http://127.0.0.1:${exporterPort}`;
  const exporterConfig = {
    listen_address: `127.0.0.1:${exporterPort}`,
    log_level: 'warn',
    http: { timeout: '2s', retries: 0 },
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
  };
  const exporterConfigFile = join(workDir, 'exporter.yml');
  writeFileSync(exporterConfigFile, toYaml(exporterConfig));
  exporter = start('exporter', process.execPath, [main, '--config', exporterConfigFile]);
  await waitFor('the exporter to be ready', 30_000, async () => {
    if (exporter.child.exitCode !== null) throw new Error(`the exporter exited:\n${tail(exporter)}`);
    return isOk(`${exporterUrl}/readyz`);
  });

  // Alertmanager, without clustering.
  const amPort = await freePort();
  alertmanagerUrl = `http://127.0.0.1:${amPort}`;
  const amConfigFile = join(workDir, 'alertmanager.yml');
  writeFileSync(
    amConfigFile,
    toYaml({
      route: { receiver: 'nowhere', group_wait: '1s', group_interval: '1s', repeat_interval: '1h' },
      receivers: [{ name: 'nowhere' }],
    }),
  );
  const am = start('alertmanager', alertmanagerBin, [
    `--config.file=${amConfigFile}`,
    `--storage.path=${join(workDir, 'alertmanager-data')}`,
    `--web.listen-address=127.0.0.1:${amPort}`,
    '--cluster.listen-address=',
    '--log.level=warn',
  ]);
  await waitFor('Alertmanager to be ready', 30_000, async () => {
    if (am.child.exitCode !== null) throw new Error(`alertmanager exited:\n${tail(am)}`);
    return isOk(`${alertmanagerUrl}/-/ready`);
  });

  // The rules as shipped, and the fast copy.
  const shipped = join(root, 'prometheus', 'alerts.yml');
  const fastFile = join(workDir, 'alerts-fast.yml');
  writeFileSync(fastFile, fastRules(readFileSync(shipped, 'utf8')));
  [real, fast] = await Promise.all([
    startPrometheus('prometheus-real', shipped),
    startPrometheus('prometheus-fast', fastFile, amPort),
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
  const failed = procs.filter((p) => p.child.exitCode !== null && p.child.exitCode !== 0);
  for (const p of failed) console.error(`--- ${p.name} exited with ${p.child.exitCode}:\n${tail(p)}`);
  await stopAll();
  await simulator?.stop();
  if (workDir && process.env.KEEP_STACK_DIR !== '1') rmSync(workDir, { recursive: true, force: true });
  else if (workDir) console.error(`stack files kept in ${workDir}`);
});

async function alertmanagerAlerts(): Promise<AmAlert[]> {
  return getJson<AmAlert[]>(`${alertmanagerUrl}/api/v2/alerts?active=true&silenced=true&inhibited=true`);
}

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

  it('runs every dashboard query without error, and each returns data', async () => {
    const dashboard = JSON.parse(
      readFileSync(join(root, 'grafana', 'dashboards', 'upstash.json'), 'utf8'),
    ) as {
      panels: { title: string; type: string; targets?: { refId: string; expr: string }[] }[];
      templating: { list: { name: string; type: string; query?: string | { query?: string } }[] };
    };
    const substitute = (expr: string): string => {
      const out = expr
        .replaceAll('$__rate_interval', '1m')
        .replaceAll('$job', '.*')
        .replaceAll('$account', '.*')
        .replaceAll('$database_id', '.*')
        .replaceAll('$database', '.*');
      if (out.includes('$')) throw new Error(`unsubstituted variable in: ${expr}`);
      return out;
    };
    const exprs = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId}`, expr: substitute(t.expr) })),
    );
    // Variable queries: label_values(selector, label) is a series lookup, query_result(expr) a query.
    for (const v of dashboard.templating.list.filter((x) => x.type === 'query')) {
      const q = typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
      const selector = /^label_values\((.*),\s*\w+\)$/.exec(q)?.[1] ?? /^query_result\((.*)\)$/.exec(q)?.[1];
      if (selector === undefined) throw new Error(`variable ${v.name}: unexpected query ${q}`);
      exprs.push({ where: `variable ${v.name}`, expr: substitute(selector) });
    }
    expect(exprs.length).toBeGreaterThan(30);
    // Last, as it makes incidents: the event sources count from the exporter's start, and the other
    // cases wanted none (a FAILED delivery fires UpstashQStashDeliveriesFailed). A delivery error and a
    // failure, a finished run and one in progress, an audit event, all from now on.
    const now = Date.now();
    sim().setQstashLogs([
      {
        time: now,
        messageId: 'stack-1',
        state: 'ERROR',
        url: 'https://api.example.com/a',
        responseStatus: 500,
      },
      { time: now, messageId: 'stack-2', state: 'FAILED', url: 'https://api.example.com/a', queueName: 'q' },
    ]);
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
    // A rate needs two samples of the new counters in its window.
    await sleep(3000);
    const empty: string[] = [];
    for (const { where, expr } of exprs) {
      const result = await real.query(expr); // throws on a PromQL error
      if (result.length === 0) empty.push(`${where}: ${expr}`);
    }
    expect(empty).toEqual([]);
  });
});
