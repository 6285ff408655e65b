import type { ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { DataSeries } from '../metrics/data-series.js';
import { limitLabelValue } from '../metrics/label-limit.js';
import type { PollUnit, UnitLabels } from '../vocabulary.js';
import type { FailureReason, SelfMetrics } from './self-metrics.js';

/** Units that share a schedule (one config entry); more may join and leave at run time. */
export interface PollGroup {
  /** Unique among the groups: the handle for adding units at run time. */
  readonly key: string;
  readonly cron: string;
  readonly intervalMs: number;
  readonly units: readonly PollUnit[];
}

/** What the poller's pieces share: where outcomes go, the log, and the (injectable) clock. */
export interface PollerEnv {
  readonly series: DataSeries;
  readonly metrics: SelfMetrics;
  readonly logger: Logger;
  readonly now: () => number;
}

/** Where a unit's outcomes are exported: its data series and its health series. */
export interface Outlet {
  readonly series: DataSeries;
  readonly metrics: SelfMetrics;
}

/** A group and its cron task (none before the poller starts). */
export interface GroupState {
  group: PollGroup;
  task: ScheduledTask | undefined;
}

/** Everything the poller keeps of one unit between polls. */
export interface UnitState {
  /** Replaced by a reload (same id, the new configuration's poll). */
  unit: PollUnit;
  /** The unit's labels as its health series and logs carry them: the label rule of every series. */
  readonly labels: UnitLabels;
  /** Nowhere for a silent unit: another shard exports it, so this one exports nothing of it. */
  readonly outlet: Outlet | undefined;
  group: GroupState;
  /** Aborts this unit's poll in flight: on shutdown, or when the unit is removed. */
  readonly abort: AbortController;
  running: Promise<void> | undefined;
  /** `ok`, a failure reason, or `pending` before the first poll ends. */
  outcome: 'ok' | 'pending' | FailureReason;
  lastPollAt: number | undefined;
  lastSuccessAt: number | undefined;
  /** How long the last finished poll took (ms). */
  lastDurationMs: number | undefined;
  /** The last failure in words safe to show (reason, HTTP status); '' after a success. */
  error: string;
  /** Retry-After: no poll before this Unix ms. */
  notBefore: number;
  staleTimer: NodeJS.Timeout | undefined;
  /** The staleness window passed while a poll was in flight: the drop waits for the poll's end. */
  staleDue: boolean;
  /** A spread tick waiting for its offset within the interval. */
  spreadTimer: NodeJS.Timeout | undefined;
  /** Fields rejected by the last poll: logged when they first go wrong, not at every poll. */
  rejected: ReadonlySet<string>;
  /** Whether an endpoint's 404 said it may be retired: logged once in the unit's life. */
  retiredNoticed: boolean;
  /** The last successful poll's trouble in the data, for the landing page (see warnings.ts). */
  warnings: readonly string[];
  /** The last successful poll's watched counts, to tell a rise (PollResult.watched). */
  watched: Readonly<Record<string, number>>;
  removed: boolean;
}

/** A unit's state before its first poll; its health series are created at zero unless it is silent. */
export function newUnitState(unit: PollUnit, group: GroupState, env: PollerEnv): UnitState {
  const labels = Object.fromEntries(
    Object.entries(unit.labels).map(([name, value]) => [name, limitLabelValue(value)]),
  ) as UnitLabels;
  const outlet = unit.silent === true ? undefined : { series: env.series, metrics: env.metrics };
  outlet?.metrics.declareSource(labels);
  return {
    unit,
    labels,
    outlet,
    group,
    abort: new AbortController(),
    running: undefined,
    outcome: 'pending',
    lastPollAt: undefined,
    lastSuccessAt: undefined,
    lastDurationMs: undefined,
    error: '',
    notBefore: 0,
    staleTimer: undefined,
    staleDue: false,
    spreadTimer: undefined,
    rejected: new Set(),
    retiredNoticed: false,
    warnings: [],
    watched: {},
    removed: false,
  };
}
