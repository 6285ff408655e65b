import { listingBody } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import type { SimulatedDatabase } from './fleet.js';
import { hashString, mix, noise } from './noise.js';
import { demoRedisSettings } from './redis-settings.js';

/** What Upstash lists as `db_request_limit` for "no limit"; beyond 2^53, so written as text. */
export const NO_LIMIT = '8024278031528736858';

/** Stands in for {@link NO_LIMIT} until the body is text, since a double cannot hold it. */
const NO_LIMIT_MARK = '@@no-limit@@';

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
    db_acl_enabled: settings.acl,
    db_acl_default_user_status: 'true',
    db_eviction: false,
    last_plan_upgrade_time: 0,
    replicas: settings.replicas,
    customer_id: 'demo@example.com',
    daily_backup_enabled: settings.dailyBackup,
    securityAddons: settings.securityAddons,
    prometheus_enabled: 'false',
    prod_pack_enabled: false,
  };
}

/** Management API `GET /v2/redis/databases`: every database the registry lists now. */
export const databasesEndpoint = defineEndpoint({
  name: 'databases',
  credential: 'basic',
  path: '/v2/redis/databases',
  oversizeFrame: ['[{"database_id":"', '"}]'],
  create: (ctx) =>
    listingBody(
      ctx,
      ctx.registries.databases,
      (d) => listingEntry(ctx.seed, d, ctx.origin),
      (value) => JSON.stringify(value).replaceAll(`"${NO_LIMIT_MARK}"`, NO_LIMIT),
    ),
});
