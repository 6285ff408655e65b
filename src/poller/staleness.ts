import type { PollerEnv, UnitState } from './unit-state.js';

/** A unit's values outlive failures for this many intervals after its last success. */
export const STALE_AFTER_INTERVALS = 3;

// setTimeout cannot wait longer than 2^31-1 ms (~24.8 days); daily schedules need more.
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Drops the unit's series when no success comes within the staleness window. Values go after failures
 * (docs/operations.md, Behaviour): while a poll of the unit is in flight, which may still succeed (a DLQ
 * pages for up to a minute whatever its interval), the drop waits for that poll's end
 * ({@link settleStaleness}). Every poll ends: its pages stop at their deadline and each request at
 * `http.timeout`.
 */
export function armStaleness(state: UnitState, env: PollerEnv): void {
  clearTimeout(state.staleTimer);
  state.staleDue = false;
  const window = STALE_AFTER_INTERVALS * state.group.group.intervalMs;
  const dropAt = (state.lastSuccessAt ?? env.now()) + window;
  const check = (): void => {
    const remaining = dropAt - env.now();
    if (remaining > 0) {
      state.staleTimer = setTimeout(check, Math.min(remaining, MAX_TIMEOUT_MS));
      state.staleTimer.unref();
      return;
    }
    if (state.running !== undefined) {
      state.staleDue = true;
      return;
    }
    dropStale(state, env);
  };
  check();
}

/**
 * After a poll of the unit ended: the drop it held back, unless its success re-armed the clock (a
 * failed poll drops the series at once when the window passed meanwhile).
 */
export function settleStaleness(state: UnitState, env: PollerEnv): void {
  if (!state.staleDue || state.removed) return;
  state.staleDue = false;
  dropStale(state, env);
}

function dropStale(state: UnitState, env: PollerEnv): void {
  // Already gone (a reload re-armed the clock of a unit that was stale before it): said once.
  if (!env.series.has(state.unit.id)) return;
  env.series.drop(state.unit.id);
  env.logger.warn(
    { ...state.labels, since: new Date(state.lastSuccessAt ?? 0).toISOString() },
    'series dropped: no successful poll for 3 intervals',
  );
}
