import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { assertUnique, parseEntries } from './schema.js';

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
  /** The limits Upstash reports for the database; a field that is absent or not a number is undefined. */
  readonly limits: Readonly<Partial<Record<DatabaseLimitField, number>>>;
  /** The settings that are on or off, by listing field; a field absent or neither is undefined. */
  readonly features: Readonly<Partial<Record<DatabaseFeatureField, boolean>>>;
  /** The replica factor; undefined when absent or not a number. */
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

const text = z.string().optional().catch(undefined);
// A limit that is not a number (absent, null, a string) is left out alone: the database still lists.
const limit = z.number().optional().catch(undefined);
// Upstash sends some switches as booleans and others as "true"/"false"; anything else is left out.
const flag = z
  .union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')])
  .optional()
  .catch(undefined);

// z.object strips unknown keys, so `password`, `rest_token`, `read_only_rest_token` and every other
// field we do not name here never reach the parsed object (nor, through it, any log or series).
const database = z.object({
  database_id: z.string().min(1),
  database_name: z.string(),
  type: text,
  region: text,
  primary_region: text,
  state: text,
  creation_time: limit,
  replicas: limit,
  read_regions: z.array(z.unknown()).optional().catch(undefined),
  ...Object.fromEntries(DATABASE_LIMIT_FIELDS.map((field) => [field, limit])),
  ...Object.fromEntries(DATABASE_FEATURE_FIELDS.map((field) => [field, flag])),
} as {
  database_id: z.ZodString;
  database_name: z.ZodString;
  type: typeof text;
  region: typeof text;
  primary_region: typeof text;
  state: typeof text;
  creation_time: typeof limit;
  replicas: typeof limit;
  read_regions: z.ZodCatch<z.ZodOptional<z.ZodArray<z.ZodUnknown>>>;
} & Record<DatabaseLimitField, typeof limit> &
  Record<DatabaseFeatureField, typeof flag>);

/**
 * Parses a database listing body (a JSON array of databases). An entry without a string
 * `database_id` or `database_name` makes the whole body invalid: it names what we poll. Error
 * messages name the path and what was expected, never a value.
 */
export function parseDatabases(json: unknown, url = 'databases'): Database[] {
  const fail = (problem: string): Error => new InvalidResponseError('GET', url, problem);
  if (!Array.isArray(json)) throw fail('wrong shape at top level: expected an array');
  const entries = parseEntries(json, database, '', fail);
  assertUnique(entries, (d) => d.database_id, 'database_id', fail);
  return entries.map((d) => {
    const limits: Partial<Record<DatabaseLimitField, number>> = {};
    for (const field of DATABASE_LIMIT_FIELDS) {
      const value = d[field];
      if (value !== undefined) limits[field] = value;
    }
    const features: Partial<Record<DatabaseFeatureField, boolean>> = {};
    for (const field of DATABASE_FEATURE_FIELDS) {
      const value = d[field];
      if (value !== undefined) features[field] = value;
    }
    return {
      id: d.database_id,
      name: d.database_name,
      type: d.type ?? '',
      region: d.region ?? '',
      primaryRegion: d.primary_region ?? '',
      state: d.state ?? '',
      creationTime: d.creation_time,
      limits,
      features,
      replicas: d.replicas,
      readRegions: d.read_regions?.length,
    };
  });
}

/** GET `{url}/v2/redis/databases`: every Redis database of the account. */
export async function fetchDatabases(client: UpstashClient, target: Target): Promise<Database[]> {
  const url = `${target.baseUrl}/v2/redis/databases`;
  const json = await client.getJson({ ...target, url });
  return parseDatabases(json, url);
}
