import cron, { type ScheduledTask } from 'node-cron';
import type { SkipReason } from './execute.js';
import type { GroupState, PollerEnv, UnitState } from './unit-state.js';

/** What a group's schedule does to its units. */
export interface TickHandlers {
  /** The group's units now (discovery adds and removes them between ticks). */
  members(): UnitState[];
  tick(unit: UnitState, deadline: number): void;
  skip(unit: UnitState, reason: SkipReason): void;
}

/**
 * The cron task of a group: at each tick, account-wide units are polled at once and the members of
 * a family at their offsets within the interval.
 */
export function scheduleGroup(state: GroupState, env: PollerEnv, handlers: TickHandlers): ScheduledTask {
  const cronLogger = env.logger.child({ component: 'node-cron' });
  const task = cron.schedule(
    state.group.cron,
    () => {
      const now = env.now();
      // One look at the schedule per tick, not one per unit: a family can be a thousand databases.
      const nextTick = nextTickOf(state, env);
      for (const [unit, offset] of offsets(handlers.members())) {
        if (offset === 0) handlers.tick(unit, nextTick);
        else tickLater(unit, offset, now, nextTick, env, handlers);
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
    for (const unit of handlers.members()) handlers.skip(unit, 'missed_tick');
  });
  return task;
}

/** Unix ms of the group's next tick: a poll should be over by then, retries and waits included. */
export function nextTickOf(group: GroupState, env: PollerEnv): number {
  return group.task?.getNextRun()?.getTime() ?? env.now() + group.group.intervalMs;
}

/**
 * Each unit's offset from the tick: 0 for account-wide units; the members of a family spread
 * evenly over the interval (in id order, so a unit keeps its slot while the family is unchanged),
 * so a rate-limited API never sees them all at once.
 */
export function offsets(units: Iterable<UnitState>): Map<UnitState, number> {
  const families = new Map<string, UnitState[]>();
  const result = new Map<UnitState, number>();
  for (const unit of units) {
    const family = unit.unit.family;
    if (family === undefined) {
      result.set(unit, 0);
      continue;
    }
    const members = families.get(family);
    if (members === undefined) families.set(family, [unit]);
    else members.push(unit);
  }
  for (const members of families.values()) {
    members.sort((a, b) => (a.unit.id < b.unit.id ? -1 : a.unit.id > b.unit.id ? 1 : 0));
    members.forEach((unit, index) => {
      result.set(unit, Math.floor((index * unit.group.group.intervalMs) / members.length));
    });
  }
  return result;
}

/** A tick `offset` ms after the group's tick at `tickAt`; its deadline moves by as much. */
function tickLater(
  state: UnitState,
  offset: number,
  tickAt: number,
  nextTick: number,
  env: PollerEnv,
  handlers: TickHandlers,
): void {
  clearTimeout(state.spreadTimer);
  state.spreadTimer = setTimeout(
    () => {
      state.spreadTimer = undefined;
      handlers.tick(state, nextTick + offset);
    },
    Math.max(0, tickAt + offset - env.now()),
  );
}
