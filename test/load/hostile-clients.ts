import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { DEMO_QSTASH_TOKEN, startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { MAIN, waitForStatus, writeConfig } from '../helpers/exporter-process.js';

// Shared by the hostile-client load tests (docs/security.md, Resource bounds): the built exporter as its own
// process, so that its memory and file descriptors are its own, polling a simulator in this process.

export const MiB = 1024 * 1024;

/** A running `node dist/main.js` and the simulator it polls. */
export interface Target {
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** Everything the exporter printed so far (pino JSON lines). */
  log(): string;
  stop(): Promise<void>;
}

export interface TargetOptions {
  /** Flow-control keys the simulator serves (and the exporter keeps): the size of /metrics. */
  readonly flowControlKeys?: number;
  /** Contents of a web config file (basic auth, TLS). */
  readonly webConfig?: string;
  /** Run under `ulimit -n`. */
  readonly fdLimit?: number;
}

/** Starts a frozen simulator and the exporter against it, and waits until it is ready. */
export async function startTarget(options: TargetOptions = {}): Promise<Target> {
  const keys = options.flowControlKeys ?? 6;
  const sim: Simulator = await startSimulator({ flowControlKeys: keys, urlGroups: 50, frozen: true });
  const config = writeConfig(`
log_level: info
limits:
  max_flow_control_keys: ${Math.max(keys, 1)}
qstash:
  - name: eu
    url: ${sim.url}
    token: ${DEMO_QSTASH_TOKEN}
    interval: 5s
${options.webConfig === undefined ? '' : 'web_config_file: web-config.yml\n'}`);
  if (options.webConfig !== undefined) {
    writeFileSync(join(config, '..', 'web-config.yml'), options.webConfig);
  }
  const args = [MAIN, '--config', config, '--web.listen-address', '127.0.0.1:0'];
  const child =
    options.fdLimit === undefined
      ? spawn(process.execPath, args, { env: { PATH: process.env.PATH } })
      : spawn(
          'bash',
          ['-c', `ulimit -n ${options.fdLimit} && exec "$@"`, 'bash', process.execPath, ...args],
          {
            env: { PATH: process.env.PATH },
          },
        );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    await sim.stop();
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`exporter did not start: ${output}`)), 10_000);
      child.stdout.on('data', () => {
        const match = output.includes('"msg":"listening"')
          ? /"address":"127\.0\.0\.1:(\d+)"/.exec(output)
          : null;
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      void exited.then(() => reject(new Error(`exporter exited: ${output}`)));
    });
    const url = `http://127.0.0.1:${port}`;
    // 200 once the first polls ended; /readyz is open under basic auth too (docs/operations.md, Endpoints).
    await waitForStatus(`${url}/readyz`, 200);
    return { pid: child.pid!, port, url, log: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Resident memory of a process, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN) / 1024;
}

/** Descriptors a process holds, from /proc (Linux). */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The outcome of one GET: status 0 when it failed (then `error` says how), and its duration. */
export interface Outcome {
  readonly status: number;
  readonly ms: number;
  readonly bytes: number;
  readonly error?: string;
}

/**
 * A GET on a connection of its own (as a scraper opening one would), given up after `timeoutMs`.
 * Never rejects.
 */
export async function timedGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  timeoutMs = 5_000,
): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number, bytes: number, error?: string): void => {
      const ms = Math.round(performance.now() - started);
      resolve(error === undefined ? { status, ms, bytes } : { status, ms, bytes, error });
    };
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => done(res.statusCode ?? 0, bytes));
      res.on('error', (error: NodeJS.ErrnoException) => done(0, bytes, error.code ?? error.message));
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => done(0, 0, error.code ?? error.message));
    req.end();
  });
}

/** The value at quantile `q` of `values` (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)] ?? NaN;
}

export const sleep = async (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
