import { get } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_API_KEY, DEMO_EMAIL, DEMO_QSTASH_TOKEN } from '../src/demo/simulator.js';
import { BENCH_QSTASH_SOURCES, type State } from './states.js';

/** The built exporter, as `npm start` runs it. */
export const EXPORTER_MAIN = resolveMain();

function resolveMain(): string {
  // BENCH_EXPORTER_MAIN=/tmp/before/dist/main.js runs another build (an older commit's worktree)
  // under this very benchmark, so that two versions are compared side by side on one machine.
  if (process.env.BENCH_EXPORTER_MAIN !== undefined) return process.env.BENCH_EXPORTER_MAIN;
  // Compiled, this file lives in node_modules/.cache/upstash-exporter-bench/bench/; under vitest, in bench/.
  const here = fileURLToPath(import.meta.url);
  const root = here.includes('/node_modules/')
    ? here.slice(0, here.indexOf('/node_modules/'))
    : join(here, '../..');
  return join(root, 'dist', 'main.js');
}

/** An exporter running in its own process (so the load generator does not share its event loop). */
export interface ExporterProcess {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawning the process to its first 200 from /readyz. */
  readonly readyMs: number;
  /** Current and peak resident set size, from /proc (undefined off Linux). */
  memory(): { rssBytes: number; peakRssBytes: number } | undefined;
  /** One GET of /metrics as text, without compression. */
  scrape(headers?: Record<string, string>): Promise<Buffer>;
  /** GETs /metrics gzip-encoded, as the bytes the exporter sends (fetch would decompress them). */
  scrapeGzip(headers?: Record<string, string>): Promise<Buffer>;
  stop(): Promise<void>;
}

/** Options of {@link startExporter}. */
export interface ExporterOptions {
  readonly simulatorUrl: string;
  readonly state: State;
  /** Poll interval of every source; default one hour, so no poll disturbs a measurement. */
  readonly interval?: string;
  /** Keep every key and group of the state (the default limits would cut 10,000 keys to 1,000). */
  readonly limits?: {
    maxFlowControlKeys: number;
    maxUrlGroups: number;
    maxQueues?: number;
    maxSchedules?: number;
  };
  /**
   * Discover the databases from the listing (no `databases:` list in the config), as a user with
   * many does, calling Upstash with `concurrency` requests in flight (`http.concurrency`).
   */
  readonly discovery?: { readonly concurrency: number };
  /**
   * Poll the QStash log (`qstash_logs`, on `events_interval: interval`, up to `maxPages` pages) instead
   * of the QStash sources of {@link BENCH_QSTASH_SOURCES}: the event window's memory (issue 30).
   */
  readonly events?: { readonly interval: string; readonly maxPages: number };
  /** Extra node flags, e.g. V8 heap sizing. */
  readonly nodeArgs?: readonly string[];
  /** Variables added to this process's environment, over {@link exporterEnv}'s (e.g. the image's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Run under `nice -n` this (Linux): a background process that must not disturb what is timed. */
  readonly niceness?: number;
}

/** Starts `node dist/main.js --config <tmp yaml>` and resolves once every source has polled once. */
export async function startExporter(options: ExporterOptions): Promise<ExporterProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'upstash-bench-'));
  const configFile = join(dir, 'config.yml');
  const interval = options.interval ?? '1h';
  const limits = options.limits ?? {
    maxFlowControlKeys: Math.max(1000, options.state.flowControlKeys),
    maxUrlGroups: Math.max(1000, options.state.urlGroups),
  };
  writeFileSync(
    configFile,
    [
      'listen_address: "127.0.0.1:0"',
      'log_level: info',
      ...(options.discovery ? ['http:', `  concurrency: ${options.discovery.concurrency}`] : []),
      'limits:',
      `  max_flow_control_keys: ${limits.maxFlowControlKeys}`,
      `  max_url_groups: ${limits.maxUrlGroups}`,
      ...(limits.maxQueues === undefined ? [] : [`  max_queues: ${limits.maxQueues}`]),
      ...(limits.maxSchedules === undefined ? [] : [`  max_schedules: ${limits.maxSchedules}`]),
      ...(options.events === undefined ? [] : [`  max_event_pages: ${options.events.maxPages}`]),
      'qstash:',
      '  - name: bench',
      `    url: ${options.simulatorUrl}`,
      `    token: ${DEMO_QSTASH_TOKEN}`,
      `    interval: ${interval}`,
      ...(options.events === undefined
        ? [`    sources: [${BENCH_QSTASH_SOURCES.join(', ')}]`]
        : ['    sources: [qstash_logs]', `    events_interval: ${options.events.interval}`]),
      'management:',
      '  - name: bench',
      `    url: ${options.simulatorUrl}`,
      `    email: ${DEMO_EMAIL}`,
      `    api_key: ${DEMO_API_KEY}`,
      `    interval: ${interval}`,
      // The account the figures were measured on (section 6's sources), not the v0.3 default of nine.
      '    sources: [databases, redis_stats, qstash_users, qstash_stats]',
      ...(options.discovery ? [] : [`    databases: [${options.state.databases.join(', ')}]`]),
      '',
    ].join('\n'),
  );
  // BENCH_EXPORTER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the exporter under load.
  const nodeArgs = [
    ...(options.nodeArgs ?? []),
    ...(process.env.BENCH_EXPORTER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
  ];
  const spawnedAt = performance.now();
  const command = [process.execPath, ...nodeArgs, EXPORTER_MAIN, '--config', configFile];
  const niced =
    options.niceness === undefined ? command : ['nice', '-n', String(options.niceness), ...command];
  const child = spawn(niced[0]!, niced.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...exporterEnv(), ...options.env },
  });
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // BENCH_EXPORTER_LOG=<file>: the exporter's log lines (skipped polls, worker restarts) kept there.
  if (process.env.BENCH_EXPORTER_LOG !== undefined) {
    child.stdout.pipe(createWriteStream(process.env.BENCH_EXPORTER_LOG));
  }
  try {
    const address = await listeningAddress(child, () => stderr);
    const url = `http://${address}`;
    await waitReady(url, child);
    return exporterHandle(child, url, performance.now() - spawnedAt, cleanup);
  } catch (error) {
    child.kill('SIGKILL');
    cleanup();
    throw error;
  }
}

/**
 * BENCH_EXPORTER_ENV="MALLOC_ARENA_MAX=1": variables given to the exporter's process only (set on the
 * bench itself, glibc's would change the simulator, the load generator and the bare server too), so
 * that the exporter can be measured as the image runs it, beside the same bench without them.
 */
export function exporterEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of (process.env.BENCH_EXPORTER_ENV ?? '').split(' ').filter((p) => p !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_EXPORTER_ENV: expected NAME=value, got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

async function listeningAddress(child: ChildProcess, stderr: () => string): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`exporter exited with ${code}: ${stderr()}`))),
  );
  const found = (async () => {
    for await (const line of lines) {
      const entry = safeJson(line);
      if (entry?.msg === 'listening' && typeof entry.address === 'string') return entry.address;
    }
    throw new Error('exporter closed stdout before listening');
  })();
  try {
    return await Promise.race([found, exited]);
  } finally {
    // Keep draining stdout so the child never blocks on a full pipe.
    child.stdout?.resume();
  }
}

function safeJson(line: string): { msg?: unknown; address?: unknown } | undefined {
  try {
    return JSON.parse(line) as { msg?: unknown; address?: unknown };
  } catch {
    return undefined;
  }
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exporter exited with ${child.exitCode}`);
    const response = await fetch(`${url}/readyz`).catch(() => undefined);
    await response?.arrayBuffer();
    if (response?.status === 200) return;
    await sleep(50);
  }
  throw new Error('exporter not ready within 120 s');
}

function exporterHandle(
  child: ChildProcess,
  url: string,
  readyMs: number,
  cleanup: () => void,
): ExporterProcess {
  const pid = child.pid!;
  return {
    url,
    pid,
    readyMs,
    memory: () => procMemory(pid),
    async scrape(headers = {}) {
      const response = await fetch(`${url}/metrics`, {
        headers: { 'accept-encoding': 'identity', ...headers },
      });
      if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    },
    async scrapeGzip(headers = {}) {
      return new Promise<Buffer>((resolve, reject) => {
        get(`${url}/metrics`, { headers: { ...headers, 'accept-encoding': 'gzip' } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            response.statusCode === 200 && response.headers['content-encoding'] === 'gzip'
              ? resolve(Buffer.concat(chunks))
              : reject(new Error(`/metrics answered ${response.statusCode} without gzip`)),
          );
          response.on('error', reject);
        }).on('error', reject);
      });
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      cleanup();
    },
  };
}

/** VmRSS and VmHWM of a process, in bytes. */
export function procMemory(pid: number): { rssBytes: number; peakRssBytes: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
}
