import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built program, started as a user would: `node dist/main.js`. */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/**
 * How long a start-up (to listening, to ready) may take before a test gives up: about a second
 * normally, so this only a hung process reaches, however busy the machine.
 */
export const START_LIMIT_MS = 60_000;

/** A running exporter child process and what it printed so far. */
export interface ExporterProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Writes a YAML config into a fresh temp folder and returns its path. */
export function writeConfig(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-'));
  const path = join(dir, 'config.yml');
  writeFileSync(path, yaml);
  return path;
}

/** Runs the program to completion (for --check-config, --help, bad configs). */
export async function runToExit(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}

/**
 * Starts the exporter on an ephemeral loopback port and waits for its `listening` log line,
 * which carries the port. `program` is the built dist/main.js unless given (an installed command).
 */
export async function startExporter(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  program: readonly [string, ...string[]] = [process.execPath, MAIN],
): Promise<ExporterProcess> {
  const [command, ...before] = program;
  const child = spawn(command, [...before, '--web.listen-address', '127.0.0.1:0', ...args], {
    env: { PATH: process.env.PATH, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A child that never said it listens must not outlive the test that gave up on it.
      child.kill('SIGKILL');
      reject(new Error(`exporter did not start: ${stdout}${stderr}`));
    }, START_LIMIT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = stdout.includes('"msg":"listening"')
        ? /"address":"127\.0\.0\.1:(\d+)"/.exec(stdout)
        : null;
      if (match !== null) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    });
    void exited.then((code) => reject(new Error(`exporter exited with ${code}: ${stdout}${stderr}`)));
  });
  return {
    child,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Polls `url` until it answers `status`, or fails after `timeoutMs`. */
export async function waitForStatus(url: string, status: number, timeoutMs = START_LIMIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (last === status) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} answered ${last}, not ${status}, within ${timeoutMs} ms`);
}
