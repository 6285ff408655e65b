import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SimulatorOptions } from '../src/demo/simulator.js';
import { EXPORTER_MAIN } from './exporter-process.js';
import { startScript } from './script-process.js';

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
  niceness?: number,
): Promise<SimulatorProcess> {
  const script = await startScript(
    SOURCE,
    {
      PATH: process.env.PATH,
      BENCH_SIMULATOR: SIMULATOR,
      BENCH_SIMULATOR_OPTIONS: JSON.stringify(options),
    },
    niceness,
  );
  return { url: script.firstLine, stop: async () => script.stop() };
}
