import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A Node.js script running in a process of its own, which said where to reach it. */
export interface ScriptProcess {
  /** The first line the script printed (its port or URL). */
  readonly firstLine: string;
  /** SIGTERM, and resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Runs an ES module `source` with `node -e` (under `nice -n niceness`, when given) and resolves with
 * the first line it prints: the bare server and the background simulator, each out of this process so
 * that their work counts neither in its CPU time nor on its event loop.
 */
export async function startScript(
  source: string,
  env: NodeJS.ProcessEnv,
  niceness?: number,
): Promise<ScriptProcess> {
  const command = [process.execPath, '--input-type=module', '-e', source];
  const [file, ...args] = niceness === undefined ? command : ['nice', '-n', String(niceness), ...command];
  const child = spawn(file ?? process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const firstLine = await Promise.race([
    (async () => {
      for await (const line of lines) return line.trim();
      throw new Error('the script closed its output before printing a line');
    })(),
    exited.then(() => {
      throw new Error(`the script exited with ${child.exitCode} before printing a line`);
    }),
  ]);
  // Keep draining its output, so that it never blocks on a full pipe.
  child.stdout.resume();
  return {
    firstLine,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
