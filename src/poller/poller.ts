import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { DataSeries } from '../metrics/data-series.js';
import { limitSampleLabels } from '../metrics/label-limit.js';
import type { Sample } from '../metrics/sample.js';
import { AbortedError, HttpStatusError, UpstashError } from '../upstash/errors.js';
import type { FailureReason, SelfMetrics, SourceLabels } from './self-metrics.js';

/** What a poll may use: its abort signal and the time by which it should be over. */
export interface PollContext {
  /** Aborted on shutdown, or when the unit is removed. */
  readonly signal: AbortSignal;
  /** Unix ms of the unit's next tick. */
  readonly deadline: number;
}

/** What one poll of a unit brought. */
export interface PollResult {
  readonly samples: readonly Sample[];
  /**
   * Upstream fields skipped alone because their value had the wrong type (the rest of the unit
   * still exports): counted per field, and logged once until the field comes right.
   */
  readonly rejectedFields?: readonly string[];
}

/** One thing polled on its own: a source of an account, or one database's stats. */
export interface PollUnit {
  /** Unique and stable (`<source>/<account>/<id>`): orders the exposition and keys the state. */
  readonly id: string;
  readonly labels: SourceLabels;
  /**
   * Units of one per-unit source of one account (the stats of each database) share a family: they
   * are polled at evenly spaced offsets within the interval, not all at the tick, and discovery
   * replaces them together ({@link Poller.syncUnits}).
   */
  readonly family?: string;
  /**
   * Polled only for what its poll does on the side (a listing another shard exports, polled here to
   * learn this shard's units): no series, no health metrics, not on the landing page; failures logged.
   */
  readonly silent?: boolean;
  poll(context: PollContext): Promise<PollResult>;
}

/** Units that share a schedule (one config entry); more may join and leave at run time. */
export interface PollGroup {
  /** Unique among the groups: the handle for {@link Poller.addUnit}. */
  readonly key: string;
  readonly cron: string;
  readonly intervalMs: number;
  readonly units: readonly PollUnit[];
}

/** What the landing page shows of a unit. */
export interface UnitStatus {
  readonly labels: SourceLabels;
  /** `ok`, a failure reason, or `pending` before the first poll ends. */
  readonly outcome: 'ok' | 'pending' | FailureReason;
  readonly lastPollAt: number | undefined;
  readonly lastSuccessAt: number | undefined;
  readonly running: boolean;
  readonly stale: boolean;
}

/** Dependencies of the {@link Poller}; the clock is injectable for tests. */
export interface PollerOptions {
  readonly groups: readonly PollGroup[];
  readonly series: DataSeries;
  readonly metrics: SelfMetrics;
  readonly logger: Logger;
  readonly now?: () => number;
}

/** A unit's values outlive failures for this many intervals after its last success. */
export const STALE_AFTER_INTERVALS = 3;

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

interface UnitState {
  unit: PollUnit;
  group: GroupState;
  /** Aborts this unit's poll in flight: on shutdown, or when the unit is removed. */
  readonly abort: AbortController;
  running: Promise<void> | undefined;
  outcome: UnitStatus['outcome'];
  lastPollAt: number | undefined;
  lastSuccessAt: number | undefined;
  /** Retry-After: no poll before this Unix ms. */
  notBefore: number;
  staleTimer: NodeJS.Timeout | undefined;
  /** A spread tick waiting for its offset within the interval. */
  spreadTimer: NodeJS.Timeout | undefined;
  /** Fields rejected by the last poll: logged when they first go wrong, not at every poll. */
  rejected: ReadonlySet<string>;
  removed: boolean;
}

interface GroupState {
  group: PollGroup;
  task: ScheduledTask | undefined;
}

/**
 * Schedules the polls (node-cron), keeps each unit single-flight, and turns outcomes into series
 * and health metrics: the one wrapper that times and reports every source, as node_exporter's
 * collector wrapper does. A tick that finds the previous poll still running, or falls inside a
 * Retry-After wait, is skipped and counted. Scrapes never reach this class.
 */
export class Poller {
  readonly #options: PollerOptions;
  readonly #now: () => number;
  readonly #groups = new Map<string, GroupState>();
  readonly #units = new Map<string, UnitState>();
  #started = false;
  #stopped = false;

  constructor(options: PollerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    for (const group of options.groups) {
      this.#groups.set(group.key, { group, task: undefined });
      for (const unit of group.units) this.#add(group.key, unit);
    }
  }

  /** Polls every unit now, then on its schedule. */
  start(): void {
    this.#started = true;
    for (const state of this.#groups.values()) this.#schedule(state);
    for (const state of this.#units.values()) this.#tick(state);
  }

  /**
   * Applies a new configuration's groups (a reload) without breaking the promises of the running
   * one: a unit that stays keeps its state (last success, staleness clock, Retry-After, a poll in
   * flight) and is polled at its next tick, never sooner; a new unit is polled at once; a unit that
   * is gone takes its series and health series with it. A group whose schedule changed is
   * rescheduled.
   */
  async reconfigure(groups: readonly PollGroup[]): Promise<void> {
    const next = new Map(groups.flatMap((group) => group.units.map((unit) => [unit.id, { unit, group }])));
    for (const id of [...this.#units.keys()]) if (!next.has(id)) this.removeUnit(id);
    const keys = new Set(groups.map((group) => group.key));
    for (const [key, state] of [...this.#groups]) {
      if (keys.has(key)) continue;
      await state.task?.destroy();
      this.#groups.delete(key);
    }
    for (const group of groups) {
      const state = this.#groups.get(group.key);
      if (state === undefined) {
        const added: GroupState = { group, task: undefined };
        this.#groups.set(group.key, added);
        if (this.#started) this.#schedule(added);
        continue;
      }
      const rescheduled = state.group.cron !== group.cron;
      state.group = group;
      if (rescheduled && this.#started) {
        await state.task?.destroy();
        this.#schedule(state);
      }
    }
    for (const [id, { unit, group }] of next) {
      const state = this.#units.get(id);
      if (state === undefined) {
        this.addUnit(group.key, unit);
        continue;
      }
      state.unit = unit;
      state.group = this.#groups.get(group.key) ?? state.group;
      // The interval may have changed: the staleness clock still runs from the last success.
      if (state.lastSuccessAt !== undefined && this.#started) this.#armStaleness(state);
    }
  }

  /** Resolves when every poll now in flight has settled. */
  async settled(): Promise<void> {
    await Promise.all([...this.#units.values()].map(async (state) => state.running));
  }

  /** Stops the schedule, aborts polls in flight and waits for them to settle. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const group of this.#groups.values()) await group.task?.destroy();
    for (const state of this.#units.values()) state.abort.abort();
    for (const state of this.#units.values()) await state.running;
    for (const state of this.#units.values()) {
      clearTimeout(state.staleTimer);
      clearTimeout(state.spreadTimer);
    }
  }

  /**
   * Adds a unit to a group at run time (discovery): it is polled at once once the poller runs, then
   * on the group's schedule. Adding a unit that is there already changes nothing.
   */
  addUnit(groupKey: string, unit: PollUnit): void {
    if (this.#units.has(unit.id) || this.#stopped) return;
    const state = this.#add(groupKey, unit);
    if (this.#started) this.#tick(state);
  }

  /**
   * Makes `units` the whole `family` of a group (discovery): members not among them are removed,
   * new ones added and polled at once, the others keep their state.
   */
  syncUnits(groupKey: string, family: string, units: readonly PollUnit[]): void {
    const wanted = new Set(units.map((unit) => unit.id));
    for (const state of [...this.#units.values()]) {
      if (state.unit.family === family && state.group.group.key === groupKey && !wanted.has(state.unit.id))
        this.removeUnit(state.unit.id);
    }
    for (const unit of units) this.addUnit(groupKey, unit);
  }

  /** Removes a unit at run time: its poll in flight is abandoned, its series and health series go. */
  removeUnit(id: string): void {
    const state = this.#units.get(id);
    if (state === undefined) return;
    state.removed = true;
    state.abort.abort();
    clearTimeout(state.staleTimer);
    clearTimeout(state.spreadTimer);
    this.#units.delete(id);
    this.#options.series.drop(id);
    if (state.unit.silent !== true) this.#options.metrics.forgetSource(state.unit.labels);
  }

  /** The ids of the units now polled, in the order they joined. */
  get unitIds(): string[] {
    return [...this.#units.keys()];
  }

  /** True once every unit has finished its first poll, successful or not. */
  get ready(): boolean {
    for (const state of this.#units.values()) if (state.outcome === 'pending') return false;
    return true;
  }

  /** A snapshot of every exported unit, in the order they joined. */
  status(): UnitStatus[] {
    return [...this.#units.values()]
      .filter((state) => state.unit.silent !== true)
      .map((state) => ({
        labels: state.unit.labels,
        outcome: state.outcome,
        lastPollAt: state.lastPollAt,
        lastSuccessAt: state.lastSuccessAt,
        running: state.running !== undefined,
        stale: state.lastSuccessAt !== undefined && !this.#options.series.has(state.unit.id),
      }));
  }

  #add(groupKey: string, unit: PollUnit): UnitState {
    const group = this.#groups.get(groupKey);
    if (group === undefined) throw new Error(`no poll group ${groupKey}`);
    if (unit.silent !== true) this.#options.metrics.declareSource(unit.labels);
    const state: UnitState = {
      unit,
      group,
      abort: new AbortController(),
      running: undefined,
      outcome: 'pending',
      lastPollAt: undefined,
      lastSuccessAt: undefined,
      notBefore: 0,
      staleTimer: undefined,
      spreadTimer: undefined,
      rejected: new Set(),
      removed: false,
    };
    this.#units.set(unit.id, state);
    return state;
  }

  #schedule(state: GroupState): void {
    const cronLogger = this.#options.logger.child({ component: 'node-cron' });
    const members = (): UnitState[] => [...this.#units.values()].filter((unit) => unit.group === state);
    const task = cron.schedule(
      state.group.cron,
      () => {
        const now = this.#now();
        // One look at the schedule per tick, not one per unit: a family can be a thousand databases.
        const nextTick = this.#nextTick(state);
        for (const [unit, offset] of this.#offsets(members())) {
          if (offset === 0) this.#tick(unit, nextTick);
          else this.#tickLater(unit, offset, now, nextTick);
        }
      },
      {
        logger: {
          info: (message) => cronLogger.debug(message),
          warn: (message) => cronLogger.warn(message),
          error: (message) => cronLogger.error(String(message)),
          debug: (message) => cronLogger.debug(String(message)),
        },
      },
    );
    // node-cron drops a tick whose timer fired over a second late (a blocked event loop): that is
    // a skipped poll too.
    task.on('execution:missed', () => {
      for (const unit of members()) this.#skip(unit, 'missed_tick');
    });
    state.task = task;
  }

  /**
   * Each unit's offset from the tick: 0 for account-wide units; the members of a family spread
   * evenly over the interval (in id order, so a unit keeps its slot while the family is unchanged),
   * so a rate-limited API never sees them all at once.
   */
  #offsets(units: readonly UnitState[]): Map<UnitState, number> {
    const families = new Map<string, UnitState[]>();
    const offsets = new Map<UnitState, number>();
    for (const unit of units) {
      const family = unit.unit.family;
      if (family === undefined) {
        offsets.set(unit, 0);
        continue;
      }
      const members = families.get(family);
      if (members === undefined) families.set(family, [unit]);
      else members.push(unit);
    }
    for (const members of families.values()) {
      members.sort((a, b) => (a.unit.id < b.unit.id ? -1 : a.unit.id > b.unit.id ? 1 : 0));
      members.forEach((unit, index) => {
        offsets.set(unit, Math.floor((index * unit.group.group.intervalMs) / members.length));
      });
    }
    return offsets;
  }

  /** A tick `offset` ms after the group's tick at `tickAt`; its deadline moves by as much. */
  #tickLater(state: UnitState, offset: number, tickAt: number, nextTick: number): void {
    clearTimeout(state.spreadTimer);
    state.spreadTimer = setTimeout(
      () => {
        state.spreadTimer = undefined;
        this.#tick(state, nextTick + offset);
      },
      Math.max(0, tickAt + offset - this.#now()),
    );
  }

  /** Unix ms of the group's next tick: a poll should be over by then, retries and waits included. */
  #nextTick(group: GroupState): number {
    return group.task?.getNextRun()?.getTime() ?? this.#now() + group.group.intervalMs;
  }

  #tick(state: UnitState, deadline = this.#nextTick(state.group)): void {
    if (this.#stopped || state.removed) return;
    if (state.running !== undefined) {
      this.#skip(state, 'still_running');
      return;
    }
    if (this.#now() < state.notBefore) {
      this.#skip(state, 'retry_after');
      return;
    }
    state.running = this.#poll(state, deadline).finally(() => {
      state.running = undefined;
    });
  }

  #skip(state: UnitState, reason: 'still_running' | 'retry_after' | 'missed_tick'): void {
    const { labels } = state.unit;
    this.#options.metrics.pollSkipped(labels);
    if (reason === 'retry_after') {
      const until = new Date(state.notBefore).toISOString();
      this.#options.logger.info({ ...labels, reason, until }, 'poll skipped');
    } else {
      this.#options.logger.warn({ ...labels, reason }, 'poll skipped');
    }
  }

  async #poll(state: UnitState, deadline: number): Promise<void> {
    const { metrics, logger, series } = this.#options;
    const { unit } = state;
    if (unit.silent === true) {
      await this.#pollSilently(state, deadline);
      return;
    }
    const labels = unit.labels;
    const started = this.#now();
    metrics.pollStarted(labels);
    state.lastPollAt = started;
    const elapsed = (): number => (this.#now() - started) / 1000;
    try {
      const polled = await unit.poll({ signal: state.abort.signal, deadline });
      if (state.removed) return;
      const { samples, truncated } = limitSampleLabels(polled.samples);
      const finished = this.#now();
      series.replace(unit.id, samples);
      metrics.labelValuesTruncated(labels, truncated);
      this.#reportRejected(state, polled.rejectedFields ?? []);
      metrics.pollSucceeded(labels, elapsed(), finished / 1000);
      state.outcome = 'ok';
      state.lastSuccessAt = finished;
      this.#armStaleness(state);
      logger.debug({ ...labels, duration: elapsed(), series: samples.length }, 'poll succeeded');
    } catch (error) {
      if (state.removed) return;
      if (error instanceof AbortedError) {
        logger.debug({ ...labels }, 'poll aborted by shutdown');
        return;
      }
      const reason: FailureReason = error instanceof UpstashError ? error.reason : 'internal';
      if (error instanceof HttpStatusError && error.retryAfterMs !== undefined) {
        state.notBefore = this.#now() + error.retryAfterMs;
      }
      metrics.pollFailed(labels, reason, elapsed());
      state.outcome = reason;
      if (error instanceof UpstashError) {
        logger.warn({ ...labels, reason, duration: elapsed(), err: error.message }, 'poll failed');
      } else {
        // Not Upstash's doing: a bug of ours. Keep running, but say so loudly, with the stack.
        logger.error({ ...labels, reason, duration: elapsed(), err: error }, 'poll failed unexpectedly');
      }
    }
  }

  /** A silent unit's poll: only its side effects count; a failure is logged, nothing else. */
  async #pollSilently(state: UnitState, deadline: number): Promise<void> {
    const { labels } = state.unit;
    try {
      await state.unit.poll({ signal: state.abort.signal, deadline });
      state.outcome = 'ok';
    } catch (error) {
      if (state.removed || error instanceof AbortedError) return;
      state.outcome = error instanceof UpstashError ? error.reason : 'internal';
      if (error instanceof HttpStatusError && error.retryAfterMs !== undefined) {
        state.notBefore = this.#now() + error.retryAfterMs;
      }
      this.#options.logger.warn(
        { ...labels, reason: state.outcome, err: error instanceof Error ? error.message : String(error) },
        "listing failed (another shard exports it; polled here to learn this shard's units)",
      );
    }
  }

  /** Counts every rejected field, and logs it when it goes wrong and when it comes right again. */
  #reportRejected(state: UnitState, fields: readonly string[]): void {
    const { metrics, logger } = this.#options;
    const now = new Set(fields);
    for (const field of now) {
      metrics.fieldRejected(state.unit.labels, field);
      if (!state.rejected.has(field)) {
        logger.warn(
          { ...state.unit.labels, field },
          'field rejected: wrong type upstream, skipped alone (the API may have changed)',
        );
      }
    }
    for (const field of state.rejected) {
      if (!now.has(field)) logger.info({ ...state.unit.labels, field }, 'field accepted again');
    }
    state.rejected = now;
  }

  /** Drops the unit's series when no success comes within the staleness window. */
  #armStaleness(state: UnitState): void {
    clearTimeout(state.staleTimer);
    const window = STALE_AFTER_INTERVALS * state.group.group.intervalMs;
    const dropAt = (state.lastSuccessAt ?? this.#now()) + window;
    const check = (): void => {
      const remaining = dropAt - this.#now();
      if (remaining > 0) {
        // setTimeout cannot wait longer than 2^31-1 ms (~24.8 days); daily schedules need more.
        state.staleTimer = setTimeout(check, Math.min(remaining, MAX_TIMEOUT_MS));
        state.staleTimer.unref();
        return;
      }
      // Already gone (a reload re-armed the clock of a unit that was stale before it): said once.
      if (!this.#options.series.has(state.unit.id)) return;
      this.#options.series.drop(state.unit.id);
      this.#options.logger.warn(
        { ...state.unit.labels, since: new Date(state.lastSuccessAt ?? 0).toISOString() },
        'series dropped: no successful poll for 3 intervals',
      );
    };
    check();
  }
}
