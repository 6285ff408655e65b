// The processes of a stack test (test/stack): the built exporter, Debian's prometheus and
// prometheus-alertmanager, each logging to a file of the test's work directory, and the waits and
// queries the tests make of them. Run by scripts/stack-test.sh (vitest.stack.config.ts).
import { spawn, type ChildProcess } from 'node:child_process';
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
import { stringify as toYaml } from 'yaml';

/** The absolute path of a program: an env override, else the first match on PATH. Fails loudly. */
export function findProgram(envVar: string, names: readonly string[]): string {
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

/** The built exporter's entry point, dist/main.js; fails when `npm run build` has not run. */
export function builtExporter(): string {
  const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
  try {
    accessSync(main, constants.R_OK);
  } catch {
    throw new Error(`${main} does not exist: run \`npm run build\` first`);
  }
  return main;
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
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

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
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

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${body.slice(0, 300)}`);
  return JSON.parse(body) as T;
}

export async function isOk(url: string): Promise<true | undefined> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok ? true : undefined;
}

export interface Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
}

/** The processes a test started in its work directory, stopped together at its end. */
export class Procs {
  readonly #procs: Proc[] = [];

  constructor(readonly workDir: string) {}

  /** Processes in a new work directory under the OS's temporary one, named from `prefix`. */
  static inTempDir(prefix: string): Procs {
    return new Procs(mkdtempSync(join(tmpdir(), prefix)));
  }

  /** Removes the work directory, or keeps it and says where when KEEP_STACK_DIR=1. */
  removeWorkDir(): void {
    if (process.env.KEEP_STACK_DIR !== '1') rmSync(this.workDir, { recursive: true, force: true });
    else console.error(`stack files kept in ${this.workDir}`);
  }

  start(name: string, command: string, args: readonly string[]): Proc {
    const logFile = join(this.workDir, `${name}.log`);
    const log = createWriteStream(logFile);
    const child = spawn(command, args, { cwd: this.workDir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const proc = { name, child, logFile };
    this.#procs.push(proc);
    return proc;
  }

  /** The last lines of a process's log, for an error message. */
  tail(proc: Proc, lines = 30): string {
    try {
      return readFileSync(proc.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Prints the log of each process that exited with an error, then stops every one. */
  async stopAll(): Promise<void> {
    for (const p of this.#procs.filter((p) => p.child.exitCode !== null && p.child.exitCode !== 0))
      console.error(`--- ${p.name} exited with ${p.child.exitCode}:\n${this.tail(p)}`);
    await Promise.all(
      this.#procs.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  /** Starts a process and waits until `readyUrl` answers 2xx; fails with its log if it exits. */
  async startReady(name: string, command: string, args: readonly string[], readyUrl: string): Promise<Proc> {
    const proc = this.start(name, command, args);
    await waitFor(`${name} to be ready`, 30_000, async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${this.tail(proc)}`);
      return isOk(readyUrl);
    });
    return proc;
  }
}

export interface Series {
  metric: Record<string, string>;
  value?: [number, string];
}

interface PromResponse {
  status: string;
  data: { resultType: string; result: Series[] };
  error?: string;
}

/** A Prometheus server of the stack: instant queries. */
export class PromServer {
  constructor(
    readonly name: string,
    readonly url: string,
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

/**
 * Starts the built exporter (`main`, from builtExporter) on a free loopback port with `config` (its
 * qstash and management accounts), logging warnings only and failing each request fast (2 s, no
 * retry); its URL once /readyz answers.
 */
export async function startExporter(
  procs: Procs,
  main: string,
  config: Record<string, unknown>,
): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const configFile = join(procs.workDir, 'exporter.yml');
  writeFileSync(
    configFile,
    toYaml({
      listen_address: `127.0.0.1:${port}`,
      log_level: 'warn',
      http: { timeout: '2s', retries: 0 },
      ...config,
    }),
  );
  await procs.startReady('exporter', process.execPath, [main, '--config', configFile], `${url}/readyz`);
  return url;
}

/**
 * Starts Prometheus scraping `target` (host:port, job `upstash`) every second and evaluating
 * `rulesFile` every second, alerting to Alertmanager on `alertmanagerPort` if given.
 */
export async function startPrometheus(
  procs: Procs,
  name: string,
  target: string,
  rulesFile: string,
  alertmanagerPort?: number,
): Promise<PromServer> {
  const binary = findProgram('PROMETHEUS_BIN', ['prometheus']);
  const port = await freePort();
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [rulesFile],
    ...(alertmanagerPort === undefined
      ? {}
      : {
          alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${alertmanagerPort}`] }] }] },
        }),
    scrape_configs: [{ job_name: 'upstash', static_configs: [{ targets: [target] }] }],
  };
  const configFile = join(procs.workDir, `${name}.yml`);
  writeFileSync(configFile, toYaml(config));
  const url = `http://127.0.0.1:${port}`;
  await procs.startReady(
    name,
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(procs.workDir, `${name}-data`)}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
      // As docker-compose.yml runs it: the exporter's exemplars are read back by the tests.
      '--enable-feature=exemplar-storage',
    ],
    `${url}/-/ready`,
  );
  return new PromServer(name, url);
}

export interface AmAlert {
  labels: Record<string, string>;
  status: { state: string };
  endsAt: string;
}

/** An Alertmanager without clustering, routing everything to no one; its alerts by its API. */
export async function startAlertmanager(
  procs: Procs,
): Promise<{ port: number; alerts: () => Promise<AmAlert[]> }> {
  const binary = findProgram('ALERTMANAGER_BIN', ['prometheus-alertmanager', 'alertmanager']);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const configFile = join(procs.workDir, 'alertmanager.yml');
  writeFileSync(
    configFile,
    toYaml({
      route: { receiver: 'nowhere', group_wait: '1s', group_interval: '1s', repeat_interval: '1h' },
      receivers: [{ name: 'nowhere' }],
    }),
  );
  await procs.startReady(
    'alertmanager',
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.path=${join(procs.workDir, 'alertmanager-data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    `${url}/-/ready`,
  );
  return {
    port,
    alerts: () => getJson<AmAlert[]>(`${url}/api/v2/alerts?active=true&silenced=true&inhibited=true`),
  };
}
