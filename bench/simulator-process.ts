import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { SimulatorOptions } from '../src/demo/simulator.js';
import { EXPORTER_MAIN } from './exporter-process.js';

/** The built simulator (dist/), which a child process can import whatever runs the benchmark. */
const SIMULATOR = pathToFileURL(join(EXPORTER_MAIN, '..', 'demo', 'simulator.js')).href;

const SOURCE = `
const { startSimulator } = await import(process.env.BENCH_SIMULATOR);
const simulator = await startSimulator(JSON.parse(process.env.BENCH_SIMULATOR_OPTIONS));
console.log(simulator.url);
process.on('SIGTERM', () => void simulator.stop().then(() => process.exit(0)));
`;

/** A simulator running in a process of its own. */
export interface SimulatorProcess {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts the simulator in its own process: for phases that run alongside others, so that answering
 * the exporter's polls never counts in this process's CPU time (the ingest figures) or event loop.
 */
export async function startSimulatorProcess(
  options: SimulatorOptions,
  niceness = 0,
): Promise<SimulatorProcess> {
  const child = spawn(
    'nice',
    ['-n', String(niceness), process.execPath, '--input-type=module', '-e', SOURCE],
    {
      env: {
        PATH: process.env.PATH,
        BENCH_SIMULATOR: SIMULATOR,
        BENCH_SIMULATOR_OPTIONS: JSON.stringify(options),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const url = await Promise.race([
    (async () => {
      for await (const line of lines) if (line.startsWith('http://')) return line;
      throw new Error('simulator process closed stdout without a URL');
    })(),
    exited.then(() => {
      throw new Error(`simulator process exited with ${child.exitCode}`);
    }),
  ]);
  child.stdout.resume();
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
