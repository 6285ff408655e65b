import { Registry } from './registry.js';

/** Database IDs the simulator serves statistics for by default, from its start. */
export const DEMO_DATABASES: readonly string[] = ['db-demo-cache', 'db-demo-sessions', 'db-demo-events'];
/** The free-plan database of the default fleet, kept near its request and disk limits. */
export const DEMO_FREE_DATABASE = 'db-demo-free';
/** The suspended database of the default fleet. */
export const DEMO_SUSPENDED_DATABASE = 'db-demo-suspended';
/** Listed from start-up until {@link FLEET_CHANGE_MS} has passed (not when frozen): then deleted. */
export const DEMO_DELETED_DATABASE = 'db-demo-scratch';
/** Listed once {@link FLEET_CHANGE_MS} has passed (not when frozen): created while the demo runs. */
export const DEMO_CREATED_DATABASE = 'db-demo-reports';
/** How long after start-up the default fleet changes. */
export const FLEET_CHANGE_MS = 45_000;

/** Options of the simulated databases (the listing, and the stats of each listed database). */
export interface DatabasesOptions {
  /**
   * Database IDs that exist; default the demo fleet (three databases, a free one near its limits, a
   * suspended one, one deleted and one created while the simulator runs).
   */
  databases?: readonly string[];
}

/** What the simulator knows of one database, beyond its ID. */
export interface SimulatedDatabase {
  readonly id: string;
  readonly name: string;
  readonly plan: 'free' | 'payg' | 'pro' | 'paid';
  readonly state: 'active' | 'suspended' | 'passive';
  readonly primaryRegion: string;
  /** Monthly budget in dollars; 0 for none. */
  readonly budget: number;
  /** Request limit; undefined for none (listed as Upstash's "no limit" number). */
  readonly requestLimit: number | undefined;
  readonly diskLimit: number;
  readonly maxClients: number;
  readonly maxCommandsPerSecond: number;
  /** Fraction of the request and disk limits the stats use: a database near its limits. */
  readonly nearLimits: boolean;
}

const PAID_LIMITS = { diskLimit: 107_374_182_400, maxClients: 10_000, maxCommandsPerSecond: 10_000 };
const FREE_LIMITS = {
  requestLimit: 500_000,
  diskLimit: 268_435_456,
  maxClients: 1_000,
  maxCommandsPerSecond: 10_000,
};

/** The demo fleet: who is listed at each moment. */
const DEMO_FLEET: readonly (SimulatedDatabase & { from?: 'change'; until?: 'change' })[] = [
  fleetEntry('db-demo-cache', 'cache-prod', 'pro', 'us-east-1', 360),
  fleetEntry('db-demo-sessions', 'sessions-prod', 'payg', 'eu-west-1', 50),
  fleetEntry('db-demo-events', 'events-staging', 'payg', 'eu-central-1', 0),
  {
    ...fleetEntry(DEMO_FREE_DATABASE, 'hobby-free', 'free', 'us-east-1', 0),
    ...FREE_LIMITS,
    nearLimits: true,
  },
  {
    ...fleetEntry(DEMO_SUSPENDED_DATABASE, 'legacy-suspended', 'payg', 'ap-southeast-1', 0),
    state: 'suspended',
  },
  { ...fleetEntry(DEMO_DELETED_DATABASE, 'tmp-scratch', 'payg', 'us-west-2', 0), until: 'change' },
  { ...fleetEntry(DEMO_CREATED_DATABASE, 'reports-prod', 'payg', 'eu-west-1', 20), from: 'change' },
];

function fleetEntry(
  id: string,
  name: string,
  plan: SimulatedDatabase['plan'],
  primaryRegion: string,
  budget: number,
): SimulatedDatabase {
  return {
    id,
    name,
    plan,
    state: 'active',
    primaryRegion,
    budget,
    requestLimit: undefined,
    ...PAID_LIMITS,
    nearLimits: false,
  };
}

/** The databases called by these IDs: the demo fleet's own entry, else a plain pay-as-you-go one. */
export function databasesByIds(ids: readonly string[]): SimulatedDatabase[] {
  return ids.map((id) => DEMO_FLEET.find((d) => d.id === id) ?? fleetEntry(id, id, 'payg', 'us-east-1', 0));
}

/**
 * The databases that exist at each moment: the demo fleet (which changes once, at
 * {@link FLEET_CHANGE_MS} after `origin`, unless the clock is frozen), or a fixed list of IDs.
 */
export function databaseRegistry(
  now: () => number,
  origin: number,
  ids: readonly string[] | undefined,
): Registry<SimulatedDatabase> {
  if (ids !== undefined) return new Registry(now, databasesByIds(ids));
  return new Registry(now, (t) => {
    const changed = t - origin >= FLEET_CHANGE_MS;
    return DEMO_FLEET.filter((d) => (changed ? d.until === undefined : d.from === undefined));
  });
}
