import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import {
  entryObject,
  number,
  optional,
  optionalFlags,
  optionalNumbers,
  optionalText,
  presentFields,
} from './tolerance.js';

/**
 * One Redis database as the listing describes it: only the fields we export. The listing also
 * carries the database's password and REST tokens; they are never read into this object.
 */
export interface Database {
  readonly id: string;
  readonly name: string;
  /** Payment plan: `free`, `payg`, `pro`, `paid` (as Upstash says it; not checked against a list). */
  readonly type: string;
  readonly region: string;
  readonly primaryRegion: string;
  readonly state: string;
  /** Unix seconds. */
  readonly creationTime: number | undefined;
  /** The limits Upstash reports for the database; one absent, or of the wrong type, is undefined. */
  readonly limits: Readonly<Partial<Record<DatabaseLimitField, number>>>;
  /** The settings that are on or off, by listing field; one absent, or neither, is undefined. */
  readonly features: Readonly<Partial<Record<DatabaseFeatureField, boolean>>>;
  /** The replica factor; undefined when absent or of the wrong type. */
  readonly replicas: number | undefined;
  /** How many read regions; undefined when `read_regions` is absent or not an array. */
  readonly readRegions: number | undefined;
}

/** The switches of a listed database's `securityAddons` object (the OpenAPI `Database`). */
const SECURITY_ADDON_FIELDS = [
  'ipWhitelisting',
  'vpcPeering',
  'privateLink',
  'tlsMutualAuth',
  'encryptionAtRest',
] as const;

/**
 * On/off settings of a listed database, in the order they are exported (boolean, or "true"/"false").
 * Those of `securityAddons` are named by their path (`securityAddons.vpcPeering`): see
 * {@link liftSecurityAddons}.
 */
export const DATABASE_FEATURE_FIELDS = [
  'tls',
  'eviction',
  'daily_backup_enabled',
  'consistent',
  'auto_upgrade',
  'prod_pack_enabled',
  'prometheus_enabled',
  ...SECURITY_ADDON_FIELDS.map((field) => `securityAddons.${field}` as const),
  'db_acl_enabled',
] as const;
export type DatabaseFeatureField = (typeof DATABASE_FEATURE_FIELDS)[number];

/** Numeric limit fields of a listed database, in the order they are exported. */
export const DATABASE_LIMIT_FIELDS = [
  'db_max_clients',
  'db_max_commands_per_second',
  'db_request_limit',
  'db_max_request_size',
  'db_max_entry_size',
  'db_disk_threshold',
  'db_memory_threshold',
  'budget',
] as const;
export type DatabaseLimitField = (typeof DATABASE_LIMIT_FIELDS)[number];

/**
 * `securityAddons` is the one nested object the listing's entry is read from: its switches are lifted
 * to top-level keys named by their path, so that the one tolerance rule of every optional field (a
 * value of the wrong type is absent alone, and named) applies to them as it does to `tls`.
 */
function liftSecurityAddons(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('securityAddons' in value)) return value;
  const addons = entryObject(value.securityAddons);
  if (addons === undefined) return value;
  const lifted: Record<string, unknown> = { ...value };
  for (const field of SECURITY_ADDON_FIELDS) lifted[`securityAddons.${field}`] = addons[field];
  return lifted;
}

// z.object strips unknown keys, so `password`, `rest_token`, `read_only_rest_token`, `customer_id`
// (an e-mail) and every other field we do not name here never reach the parsed object (nor, through
// it, any log or series).
const databaseFields = z.object({
  database_id: z.string().min(1),
  database_name: z.string(),
  type: optionalText,
  region: optionalText,
  primary_region: optionalText,
  state: optionalText,
  creation_time: optional(number),
  replicas: optional(number),
  read_regions: optional(z.array(z.unknown())),
  ...optionalNumbers(DATABASE_LIMIT_FIELDS),
  ...optionalFlags(DATABASE_FEATURE_FIELDS),
  // Read only to say so when it is not an object (a rejected field): its switches are lifted above.
  securityAddons: optional(z.object({})),
});
const database = z.preprocess(liftSecurityAddons, databaseFields);

/**
 * Parses a database listing body (a JSON array of databases). An entry without a string
 * `database_id` or `database_name` makes the whole body invalid: it names what we poll. Error
 * messages name the path and what was expected, never a value.
 */
export function parseDatabases(json: unknown, url = 'databases'): Promise<Listing<Database>> {
  return parseListing(json, url, {
    entry: database,
    keyField: 'database_id',
    toEntry: (d) => ({
      id: d.database_id,
      name: d.database_name,
      type: d.type ?? '',
      region: d.region ?? '',
      primaryRegion: d.primary_region ?? '',
      state: d.state ?? '',
      creationTime: d.creation_time,
      limits: presentFields(d, DATABASE_LIMIT_FIELDS),
      features: presentFields(d, DATABASE_FEATURE_FIELDS),
      replicas: d.replicas,
      readRegions: d.read_regions?.length,
    }),
  });
}

/** GET `{url}/v2/redis/databases`: every Redis database of the account. */
export async function fetchDatabases(client: UpstashClient, target: Target): Promise<Listing<Database>> {
  const url = `${target.baseUrl}/v2/redis/databases`;
  return parseDatabases(await client.getJson({ ...target, url }), url);
}
