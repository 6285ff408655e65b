import { setTimeout as sleep } from 'node:timers/promises';
import { startExporter, type ExporterProcess } from './exporter-process.js';
import { startSimulatorProcess } from './simulator-process.js';
import { simulatorOptions, type State } from './states.js';

/** The exporter process's memory at one moment: /proc and its own `nodejs_*` metrics. */
export interface MemoryPoint {
  readonly label: string;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly youngGenerationBytes: number;
  readonly externalBytes: number;
}

/** One exporter process's memory over a phase. */
export interface MemoryRun {
  readonly label: string;
  readonly points: readonly MemoryPoint[];
  /** VmHWM at the end of the run: the most it ever held. */
  readonly peakRssBytes: number;
}

/** Node flags that put V8's own heap sizing back, over the program's (src/main.ts). */
export const V8_DEFAULTS = ['--no-optimize-for-size', '--semi-space-growth-factor=2'];

/** Reads the exporter's memory now. */
export async function memoryPoint(exporter: ExporterProcess, label: string): Promise<MemoryPoint> {
  const text = (await exporter.scrape()).toString('utf8');
  return {
    label,
    rssBytes: exporter.memory()?.rssBytes ?? NaN,
    heapUsedBytes: metricValue(text, 'nodejs_heap_size_used_bytes'),
    heapTotalBytes: metricValue(text, 'nodejs_heap_size_total_bytes'),
    youngGenerationBytes: metricValue(text, 'nodejs_heap_space_size_total_bytes\\{space="new"\\}'),
    externalBytes: metricValue(text, 'nodejs_external_memory_bytes'),
  };
}

/** The value of the first sample of `name` (a regular expression) in an exposition. */
export function metricValue(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return Number(match?.[1] ?? NaN);
}

/** Poll cycles an exporter has completed: its flow-control polls (one per cycle). */
function cyclesDone(text: string): number {
  const match = /^upstash_exporter_polls_total\{[^}]*source="flow_control"[^}]*\} (\S+)$/m.exec(text);
  return Number(match?.[1] ?? 0);
}

/** An exporter polling `state` every second in the background, for the no-growth figure. */
export interface Cycles {
  /** Records the memory now, labelled with the cycles done so far. */
  mark(): Promise<void>;
  /** Resolves once the cycles are done (or at `deadline`, ms of performance.now()), with the memory along the way. */
  finish(deadline: number): Promise<MemoryRun>;
}

/** The background processes yield the CPU to everything else (the nicest level). */
const BACKGROUND = 19;

/**
 * Starts an exporter (and a simulator, each in its own process) polling `state` every second, and
 * records its memory after the first poll, when marked, and after `cycles` of them. As 100 cycles
 * take 100 seconds, they run behind the whole benchmark, at the lowest CPU priority (unless told) so that
 * what is timed meanwhile is not disturbed (they progress when a core is idle).
 */
export async function startCycles(state: State, cycles: number, niceness = BACKGROUND): Promise<Cycles> {
  const simulator = await startSimulatorProcess(simulatorOptions(state), niceness);
  const exporter = await startExporter({
    simulatorUrl: simulator.url,
    state,
    interval: '1s',
    niceness,
  });
  const points: MemoryPoint[] = [await memoryPoint(exporter, 'after the first poll')];
  // Each look is a full scrape (megabytes) in this process, so it looks only when told to, between
  // the timed phases, and then at the end.
  const look = async (): Promise<number> => cyclesDone((await exporter.scrape()).toString('utf8'));
  const finished = async (deadline: number): Promise<void> => {
    let done = await look();
    while (done < cycles && performance.now() < deadline) {
      await sleep(Math.min(Math.max(1, cycles - done) * 1000, Math.max(0, deadline - performance.now())));
      done = await look();
    }
    points.push(await memoryPoint(exporter, `after ${done} poll cycles`));
  };
  return {
    async mark() {
      points.push(await memoryPoint(exporter, `after ${await look()} poll cycles`));
    },
    async finish(deadline) {
      try {
        await finished(deadline);
        const peakRssBytes = exporter.memory()?.peakRssBytes ?? NaN;
        return { label: 'as shipped, polling every second', points, peakRssBytes };
      } finally {
        await exporter.stop();
        await simulator.stop();
      }
    },
  };
}
