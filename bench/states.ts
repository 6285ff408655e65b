import { QSTASH_SOURCES } from '../src/config/types.js';
import { DEMO_QSTASH_INSTANCES, type SimulatorOptions } from '../src/demo/simulator.js';
import { ownScheduleOf } from '../src/vocabulary.js';

/**
 * The QStash sources the benchmarks poll: every one on the entry's interval. Those on a schedule of
 * their own (the two DLQs, the event sources) page (a request per state and page) and would blur the
 * one-request-per-poll figures; their paging is tested on its own (test/upstash/dlq.test.ts,
 * test/upstash/pager.test.ts, test/sources/event-sources.test.ts).
 */
export const BENCH_QSTASH_SOURCES = QSTASH_SOURCES.filter((name) => ownScheduleOf(name) === undefined);

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

/** The "account" state: a whole account whose databases the exporter discovers from the listing. */
export interface AccountState extends State {
  readonly queues: number;
  readonly schedules: number;
  /** QStash instances the management API lists (each with its `qstash_stats`). */
  readonly qstashInstances: number;
}

/** How big an account to simulate. */
export interface AccountSize {
  readonly databases: number;
  readonly flowControlKeys: number;
  readonly queues: number;
  readonly schedules: number;
}

/** An account of `size`, with the demo's URL groups and its two QStash instances; ~45 KB of stats per database. */
export function accountState(size: AccountSize): AccountState {
  return {
    label: `account (${size.databases} databases)`,
    flowControlKeys: size.flowControlKeys,
    urlGroups: 4,
    maxEndpoints: 12,
    databases: Array.from({ length: size.databases }, (_, i) => `db-account-${String(i).padStart(5, '0')}`),
    pointsPerSeries: 60,
    queues: size.queues,
    schedules: size.schedules,
    qstashInstances: DEMO_QSTASH_INSTANCES.length,
  };
}

/** Simulator options serving an account state, frozen: every response byte-identical. */
export function accountSimulatorOptions(state: AccountState): SimulatorOptions {
  return { ...simulatorOptions(state), queues: state.queues, schedules: state.schedules };
}

/**
 * The units the exporter polls for an account, each one request per cycle: the five QStash sources
 * ({@link BENCH_QSTASH_SOURCES}), the two management listings, and one stats poll per database and
 * per QStash instance.
 */
export function accountUnits(state: AccountState): number {
  return BENCH_QSTASH_SOURCES.length + 2 + state.databases.length + state.qstashInstances;
}
