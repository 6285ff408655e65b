import type { Answer } from './answer.js';
import { BodyCache, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { hashString, mix, noise } from './noise.js';
import { demoRedisSettings } from './redis-settings.js';

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
/** What Upstash lists as `db_request_limit` for "no limit"; beyond 2^53, so written as text. */
export const NO_LIMIT = '8024278031528736858';

/** Options of the simulated database listing (the stats endpoint reads the same fleet). */
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
  /** Request limit; undefined for none (listed as {@link NO_LIMIT}). */
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

/**
 * The databases that exist at each moment: the demo fleet (which changes once, at
 * {@link FLEET_CHANGE_MS}, unless frozen), or a fixed list of IDs.
 */
export class DatabaseFleet {
  readonly #ctx: EndpointContext;
  #fixed: readonly SimulatedDatabase[] | undefined;

  constructor(ctx: EndpointContext, ids: readonly string[] | undefined) {
    this.#ctx = ctx;
    this.#fixed = ids === undefined ? undefined : ids.map((id) => this.#plain(id));
  }

  /** Replace the databases that exist by these IDs, for good. */
  set(ids: readonly string[]): void {
    this.#fixed = ids.map((id) => this.#plain(id));
  }

  /** The databases listed now. */
  listed(): readonly SimulatedDatabase[] {
    if (this.#fixed !== undefined) return this.#fixed;
    const changed = this.#ctx.now() - this.#ctx.origin >= FLEET_CHANGE_MS;
    return DEMO_FLEET.filter((d) => (changed ? d.until === undefined : d.from === undefined));
  }

  /** The database called `id` now, if listed. */
  find(id: string): SimulatedDatabase | undefined {
    return this.listed().find((d) => d.id === id);
  }

  #plain(id: string): SimulatedDatabase {
    return DEMO_FLEET.find((d) => d.id === id) ?? fleetEntry(id, id, 'payg', 'us-east-1', 0);
  }
}

/** The listing entry of one database, every field of the OpenAPI's `Database`, fake credentials included. */
function listingEntry(seed: number, d: SimulatedDatabase, origin: number): Record<string, unknown> {
  const id = mix(seed ^ hashString(d.id));
  const secret = (salt: number): string =>
    Array.from({ length: 4 }, (_, k) => Math.floor(noise(id, k, salt) * 0xffffffff).toString(16)).join('');
  const endpoint = `${d.name.replace(/[^a-z0-9]/g, '-')}-${String(id % 100_000)}`;
  const settings = demoRedisSettings(d.id);
  return {
    database_id: d.id,
    database_name: d.name,
    password: `SIMULATED-PASSWORD-${secret(1)}`,
    endpoint,
    port: 6379,
    rest_token: `SIMULATED-REST-TOKEN-${secret(2)}`,
    read_only_rest_token: `SIMULATED-READONLY-TOKEN-${secret(3)}`,
    region: 'global',
    type: d.plan,
    creation_time: Math.floor(origin / 1000) - 86_400 * (30 + (id % 300)),
    state: d.state,
    tls: settings.tls,
    db_max_clients: d.maxClients,
    db_max_request_size: 10_485_760,
    db_disk_threshold: d.diskLimit,
    db_max_entry_size: 104_857_600,
    db_memory_threshold: d.plan === 'free' ? 268_435_456 : 3_221_225_472,
    db_max_commands_per_second: d.maxCommandsPerSecond,
    db_request_limit: d.requestLimit ?? NO_LIMIT_MARK,
    budget: d.budget,
    primary_region: d.primaryRegion,
    primary_members: [d.primaryRegion],
    all_members: [d.primaryRegion],
    read_regions: settings.readRegions,
    eviction: settings.eviction,
    auto_upgrade: false,
    consistent: false,
    modifying_state: '',
    db_resource_size: d.plan === 'free' ? 'S' : 'L',
    db_type: 'pebble',
    db_conn_idle_timeout: 21_600_000_000_000,
    db_lua_timeout: 250_000_000,
    db_lua_credits_per_min: 10_000_000_000,
    db_store_max_idle: 900_000_000_000,
    db_max_loads_per_sec: 1_000_000,
    db_acl_enabled: 'false',
    db_acl_default_user_status: 'true',
    db_eviction: false,
    last_plan_upgrade_time: 0,
    replicas: settings.replicas,
    customer_id: 'demo@example.com',
    daily_backup_enabled: settings.dailyBackup,
    securityAddons: {
      ipWhitelisting: false,
      vpcPeering: false,
      privateLink: false,
      tlsMutualAuth: false,
      encryptionAtRest: false,
    },
    prometheus_enabled: 'false',
    prod_pack_enabled: false,
  };
}

/** Stands in for {@link NO_LIMIT} until the body is text, since a double cannot hold it. */
const NO_LIMIT_MARK = '@@no-limit@@';

/** The account's database listing, as the management API answers it. */
export class Databases implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly fleet: DatabaseFleet;
  readonly #bodies: BodyCache;

  constructor(ctx: EndpointContext, options: DatabasesOptions) {
    this.#ctx = ctx;
    this.fleet = new DatabaseFleet(ctx, options.databases);
    this.#bodies = new BodyCache(ctx.frozen);
  }

  /** Replace the databases that exist (the listing and the stats endpoint agree). */
  setDatabases(ids: readonly string[]): void {
    this.fleet.set(ids);
    this.#bodies.clear();
  }

  answer(): Answer {
    const listed = this.fleet.listed();
    const body = this.#bodies.get('list', () =>
      listed.map((d) => listingEntry(this.#ctx.seed, d, this.#ctx.origin)),
    );
    return { status: 200, body: Buffer.from(body.toString().replaceAll(`"${NO_LIMIT_MARK}"`, NO_LIMIT)) };
  }
}

/** Management API `GET /v2/redis/databases`, with or without the trailing slash. */
export const databasesEndpoint = defineEndpoint({
  name: 'databases',
  credential: 'basic',
  match: (path) => (/^\/v2\/redis\/databases\/?$/.test(path) ? {} : undefined),
  oversizeFrame: ['[{"database_id":"', '"}]'],
  create: (ctx, options: DatabasesOptions) => new Databases(ctx, options),
});
