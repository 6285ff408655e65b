import type { SimulatorOptions } from '../src/demo/simulator.js';

/** A simulated Upstash account set, in the units the issue speaks of. */
export interface State {
  readonly label: string;
  readonly flowControlKeys: number;
  readonly urlGroups: number;
  readonly maxEndpoints: number;
  readonly databases: readonly string[];
  readonly pointsPerSeries: number;
}

/** The small state that the scaling runs multiply; ×100 is the "large" state. */
const SMALL = { flowControlKeys: 100, urlGroups: 5, databases: 2 } as const;

/** `scale` times the small state: 1×, 10× and 100× (= large: 10,000 keys, 500 groups, 200 databases). */
export function scaledState(scale: number): State {
  return {
    label: `${scale}×`,
    flowControlKeys: SMALL.flowControlKeys * scale,
    urlGroups: SMALL.urlGroups * scale,
    maxEndpoints: 100,
    databases: Array.from({ length: SMALL.databases * scale }, (_, i) => `db-bench-${i}`),
    pointsPerSeries: 60,
  };
}

/** The sources the exporter polls for a state: two QStash sources and one per database. */
export function sourceCount(state: State): number {
  return 2 + state.databases.length;
}

/** Simulator options serving `state` with frozen time, so every response is byte-identical. */
export function simulatorOptions(state: State): SimulatorOptions {
  return {
    flowControlKeys: state.flowControlKeys,
    urlGroups: state.urlGroups,
    maxEndpoints: state.maxEndpoints,
    databases: state.databases,
    pointsPerSeries: state.pointsPerSeries,
    frozen: true,
  };
}
