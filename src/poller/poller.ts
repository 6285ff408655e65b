import type { Logger } from 'pino';
import type { DataSeries } from '../metrics/data-series.js';
import type { PollUnit, UnitStatus } from '../vocabulary.js';
import { skip, tick } from './execute.js';
import type { SelfMetrics } from './self-metrics.js';
import { armStaleness } from './staleness.js';
import { nextTickOf, offsets, scheduleGroup } from './ticks.js';
import {
  newUnitState,
  type GroupState,
  type PollerEnv,
  type PollGroup,
  type UnitState,
} from './unit-state.js';

export type { PollGroup } from './unit-state.js';
export { STALE_AFTER_INTERVALS } from './staleness.js';
export type { UnitStatus } from '../vocabulary.js';

/** Dependencies of the {@link Poller}; the clock is injectable for tests. */
export interface PollerOptions {
  readonly groups: readonly PollGroup[];
  readonly series: DataSeries;
  readonly metrics: SelfMetrics;
  readonly logger: Logger;
  readonly now?: () => number;
  /**
   * What a dead poll worker last published of each unit, by ID: a restarted worker's units continue
   * from it (last success and its staleness clock, outcome, Retry-After) instead of starting afresh.
   */
  readonly carried?: ReadonlyMap<string, UnitStatus>;
}

/**
 * Keeps the units and their groups: schedules them (ticks.ts), keeps each unit single-flight and
 * runs its polls through the one wrapper that times and reports every source (execute.ts), and says
 * when the exporter is ready. Scrapes never reach this class.
 */
export class Poller {
  readonly #env: PollerEnv;
  readonly #groups = new Map<string, GroupState>();
  readonly #units = new Map<string, UnitState>();
  readonly #carried: ReadonlyMap<string, UnitStatus> | undefined;
  #started = false;
  #stopped = false;
  /** Ready once: units a reload adds start `pending`, and the exporter stays ready meanwhile. */
  #wasReady = false;

  constructor(options: PollerOptions) {
    this.#env = { ...options, now: options.now ?? Date.now };
    this.#carried = options.carried;
    for (const group of options.groups) {
      this.#groups.set(group.key, { group, task: undefined });
      for (const unit of group.units) this.#add(group.key, unit);
    }
  }

  /** Polls every unit now, then on its schedule. */
  start(): void {
    this.#started = true;
    // A unit carried from a dead worker keeps the staleness clock of its last success.
    for (const state of this.#units.values())
      if (state.lastSuccessAt !== undefined) armStaleness(state, this.#env);
    for (const state of this.#groups.values()) this.#schedule(state);
    for (const state of this.#units.values()) this.#tick(state);
  }

  /**
   * Applies a new configuration's groups (a reload) without breaking the promises of the running
   * one: a unit that stays keeps its state (last success, staleness clock, Retry-After, a poll in
   * flight) and is polled at its next tick, never sooner; a new unit is polled at once; a unit that
   * is gone takes its series and health series with it. A group whose schedule changed is
   * rescheduled. A poll in flight finishes as it began, but its news (a listing's units) is dropped:
   * it was made under the configuration replaced here.
   */
  async reconfigure(groups: readonly PollGroup[]): Promise<void> {
    this.#wasReady ||= this.ready;
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
      if (state.lastSuccessAt !== undefined && this.#started) armStaleness(state, this.#env);
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
   * on the group's schedule. Adding a unit that is there already, or to a group a reload removed,
   * changes nothing.
   */
  addUnit(groupKey: string, unit: PollUnit): void {
    if (this.#units.has(unit.id) || this.#stopped) return;
    const state = this.#add(groupKey, unit);
    if (state !== undefined && this.#started) this.#tick(state);
  }

  /**
   * Makes `units` the whole `family` of a group (discovery): members not among them are removed,
   * new ones added and polled at once, the others keep their state. A group a reload removed has
   * no family left to change: nothing happens.
   */
  syncUnits(groupKey: string, family: string, units: readonly PollUnit[]): void {
    if (!this.#groups.has(groupKey)) return;
    const wanted = new Set(units.map((unit) => unit.id));
    for (const state of [...this.#units.values()]) {
      if (state.unit.family === family && state.group.group.key === groupKey && !wanted.has(state.unit.id))
        this.removeUnit(state.unit.id);
    }
    for (const unit of units) {
      const state = this.#units.get(unit.id);
      // A unit that stays takes the listing's unit, with the name it has now (a database renamed).
      if (state?.group.group.key === groupKey) state.unit = unit;
      else this.addUnit(groupKey, unit);
    }
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
    state.outlet?.series.drop(id);
    state.outlet?.metrics.forgetSource(state.labels);
  }

  /** The ids of the units now polled, in the order they joined. */
  get unitIds(): string[] {
    return [...this.#units.keys()];
  }

  /**
   * True once every unit has finished its first poll, successful or not; and from the first reload
   * of a ready exporter on, for good (the units a reload adds do not make it unready).
   */
  get ready(): boolean {
    if (this.#wasReady) return true;
    for (const state of this.#units.values()) if (state.outcome === 'pending') return false;
    return true;
  }

  /**
   * A snapshot of every exported unit, in the order they joined: plain data for the landing page.
   * Linear in the units but for sorting each family by ID to find its members' slots (as the ticks
   * do), and one look at each group's schedule.
   */
  status(): UnitStatus[] {
    const now = this.#env.now();
    const nextTicks = new Map<GroupState, number>();
    const slots = offsets(this.#units.values());
    const statuses: UnitStatus[] = [];
    for (const state of this.#units.values()) {
      if (state.outlet === undefined) continue;
      let nextTick = nextTicks.get(state.group);
      if (nextTick === undefined) {
        nextTick = nextTickOf(state.group, this.#env);
        nextTicks.set(state.group, nextTick);
      }
      const { intervalMs } = state.group.group;
      const offset = slots.get(state) ?? 0;
      // A family member waiting for its slot of the tick that passed is polled in this interval.
      const nextPollAt = nextTick + offset - (state.spreadTimer === undefined ? 0 : intervalMs);
      statuses.push({
        id: state.unit.id,
        labels: state.labels,
        name: state.unit.name ?? '',
        lists: state.unit.lists ?? '',
        outcome: state.outcome,
        error: state.error,
        lastPollAt: state.lastPollAt,
        lastSuccessAt: state.lastSuccessAt,
        lastDurationMs: state.lastDurationMs,
        intervalMs,
        nextPollAt,
        notBefore: state.notBefore > now ? state.notBefore : 0,
        running: state.running !== undefined,
        stale: state.lastSuccessAt !== undefined && !this.#env.series.has(state.unit.id),
        warnings: state.warnings,
      });
    }
    return statuses;
  }

  #add(groupKey: string, unit: PollUnit): UnitState | undefined {
    const group = this.#groups.get(groupKey);
    if (group === undefined) return undefined;
    const state = newUnitState(unit, group, this.#env);
    const carried = this.#carried?.get(unit.id);
    if (carried !== undefined) {
      state.outcome = carried.outcome as UnitState['outcome'];
      state.error = carried.error;
      state.warnings = carried.warnings;
      state.lastPollAt = carried.lastPollAt;
      state.lastSuccessAt = carried.lastSuccessAt;
      state.lastDurationMs = carried.lastDurationMs;
      state.notBefore = carried.notBefore;
    }
    this.#units.set(unit.id, state);
    return state;
  }

  #schedule(state: GroupState): void {
    state.task = scheduleGroup(state, this.#env, {
      members: () => [...this.#units.values()].filter((unit) => unit.group === state),
      tick: (unit, deadline) => this.#tick(unit, deadline),
      skip: (unit, reason) => skip(unit, reason, this.#env),
    });
  }

  #tick(state: UnitState, deadline = nextTickOf(state.group, this.#env)): void {
    if (this.#stopped || state.removed) return;
    tick(state, deadline, this.#env);
  }
}
