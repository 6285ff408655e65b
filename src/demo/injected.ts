import {
  DEMO_CREATED_DATABASE,
  DEMO_DELETED_DATABASE,
  DEMO_SUSPENDED_DATABASE,
  FLEET_CHANGE_MS,
} from './fleet.js';
import { DEMO_CHANGED_FIELD } from './redis-stats.js';
import { DEMO_FAILING_SCHEDULE, FAILS_AFTER_MS } from './schedules.js';

/** Something the default simulator does on purpose, and what the demo user will see of it. */
export interface Injected {
  /** A short stable name, for the log field. */
  readonly injected: string;
  /** What happens and why, in one sentence. */
  readonly message: string;
}

/**
 * What the default simulator injects on purpose, so that a demo user knows the warnings and changes
 * that follow are the demo's, not a fault of the exporter: said before the demo starts polling.
 */
export const DEMO_INJECTED: readonly Injected[] = [
  {
    injected: 'changed_field',
    message: `demo: injected on purpose: the suspended database ${DEMO_SUSPENDED_DATABASE} sends its ${DEMO_CHANGED_FIELD} field with the wrong type, as after an API change; the "field rejected" warning that follows shows how the exporter reports it (the rest of the database still exports)`,
  },
  {
    injected: 'fleet_change',
    message: `demo: injected on purpose: ${FLEET_CHANGE_MS / 1000} s after start, database ${DEMO_DELETED_DATABASE} is deleted and ${DEMO_CREATED_DATABASE} created, to show discovery (the landing page and /metrics follow)`,
  },
  {
    injected: 'opening_events',
    message: `demo: injected on purpose: at the first poll the simulator's logs hold one delivery error and one failure, a finished workflow run and an audit event, so that every event counter is on /metrics from the start; the "delivery FAILED" warning that follows is one of them`,
  },
  {
    injected: 'failing_schedule',
    message: `demo: injected on purpose: schedule ${DEMO_FAILING_SCHEDULE} starts failing ${FAILS_AFTER_MS / 1000} s after start, to show a failing schedule's series`,
  },
];
