import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import {
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

/** On/off settings of a listed database, in the order they are exported (boolean, or "true"/"false"). */
export const DATABASE_FEATURE_FIELDS = [
  'tls',
  'eviction',
  'daily_backup_enabled',
  'consistent',
  'auto_upgrade',
  'prod_pack_enabled',
  'prometheus_enabled',
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

// z.object strips unknown keys, so `password`, `rest_token`, `read_only_rest_token` and every other
// field we do not name here never reach the parsed object (nor, through it, any log or series).
const database = z.object({
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
});

/**
 * Parses a database listing body (a JSON array of databases). An entry without a string
 * `database_id` or `database_name` makes the whole body invalid: it names what we poll. Error
 * messages name the path and what was expected, never a value.
 */
export function parseDatabases(json: unknown, url = 'databases'): Promise<Listing<Database>> {
  return parseListing(json, url, {
    entry: database,
    keyField: 'database_id',
    key: (d) => d.database_id,
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
