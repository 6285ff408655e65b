import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import {
  DATABASE_FEATURE_FIELDS,
  DATABASE_LIMIT_FIELDS,
  fetchDatabases,
  type Database,
  type DatabaseFeatureField,
  type DatabaseLimitField,
} from '../upstash/databases.js';
import { counted, polled, someIds, type DatabaseSelection, type SourceKind } from './source.js';

const POLLED = polled('databases');

const METRICS = {
  databases: gauge(
    'upstash_redis_databases',
    `Redis databases the account lists, before include/exclude (count). ${POLLED}`,
  ),
  info: gauge(
    'upstash_redis_database_info',
    `A polled Redis database: its name, plan type, region, primary region and state (always 1). ${POLLED}`,
  ),
  created: gauge(
    'upstash_redis_database_created_timestamp_seconds',
    `When the database was created (Unix time in seconds). ${POLLED}`,
  ),
};

/** The `feature` label of each on/off setting (docs/metrics.md, Redis settings and backups). */
const FEATURE_NAMES: Record<DatabaseFeatureField, string> = {
  tls: 'tls',
  eviction: 'eviction',
  daily_backup_enabled: 'daily_backup',
  consistent: 'consistent',
  auto_upgrade: 'auto_upgrade',
  prod_pack_enabled: 'prod_pack',
  prometheus_enabled: 'native_prometheus',
  'securityAddons.ipWhitelisting': 'ip_allowlist',
  'securityAddons.vpcPeering': 'vpc_peering',
  'securityAddons.privateLink': 'private_link',
  'securityAddons.tlsMutualAuth': 'mtls',
  'securityAddons.encryptionAtRest': 'encryption_at_rest',
  db_acl_enabled: 'acl',
};

const SETTINGS = {
  feature: gauge(
    'upstash_redis_feature_enabled',
    `Whether a setting of the database is on (1) or off (0), by feature: tls, eviction, daily_backup, consistent, auto_upgrade, prod_pack, native_prometheus, ip_allowlist, vpc_peering, private_link, mtls, encryption_at_rest, acl; only those the listing gives. ${POLLED}`,
  ),
  replicas: gauge('upstash_redis_replicas', `Replica factor of the database (count). ${POLLED}`),
  readRegions: gauge('upstash_redis_read_regions', `Read regions of the database (count). ${POLLED}`),
};

/** Limit gauges by listing field, in exposition order. */
const LIMIT_METRICS: Record<DatabaseLimitField, DataMetric> = {
  db_max_clients: gauge(
    'upstash_redis_max_clients',
    `Most concurrent client connections the database accepts (count). ${POLLED}`,
  ),
  db_max_commands_per_second: gauge(
    'upstash_redis_max_commands_per_second',
    `Most commands per second the database accepts (commands per second). ${POLLED}`,
  ),
  db_request_limit: gauge(
    'upstash_redis_request_limit',
    `Request limit of the database, as reported by Upstash (count; 8.02e18 means no limit). ${POLLED}`,
  ),
  db_max_request_size: gauge(
    'upstash_redis_max_request_size_bytes',
    `Largest request the database accepts (bytes). ${POLLED}`,
  ),
  db_max_entry_size: gauge(
    'upstash_redis_max_entry_size_bytes',
    `Largest entry the database accepts (bytes). ${POLLED}`,
  ),
  db_disk_threshold: gauge('upstash_redis_disk_limit_bytes', `Disk the database may use (bytes). ${POLLED}`),
  db_memory_threshold: gauge(
    'upstash_redis_memory_limit_bytes',
    `Memory the database may use (bytes). ${POLLED}`,
  ),
  budget: gauge('upstash_redis_budget_dollars', `Monthly budget of the database (US dollars). ${POLLED}`),
};

// Where the composition root finds it beside `selects`, which tests what it compiles.
export { anchoredRegex } from '../metrics/relabel-regex.js';

/** Whether the entry polls `database`: listed by ID, or matching some include and no exclude. */
export function selects(selection: DatabaseSelection | undefined, database: Database): boolean {
  if (selection === undefined) return true;
  if (selection.ids !== undefined) return selection.ids.includes(database.id);
  const included = selection.include.length === 0 || selection.include.some((re) => re.test(database.name));
  return included && !selection.exclude.some((re) => re.test(database.name));
}

/** The samples of one listing: the count of all databases, and info and limits of the selected ones. */
export function databaseSamples(
  account: string,
  all: readonly Database[],
  polled: readonly Database[],
): Sample[] {
  const samples: Sample[] = [sample(METRICS.databases, [['account', account]], all.length)];
  for (const database of polled) {
    const labels = [
      ['account', account],
      ['database_id', database.id],
    ] as const;
    samples.push(
      sample(
        METRICS.info,
        [
          ...labels,
          ['database_name', database.name],
          ['type', database.type],
          ['region', database.region],
          ['primary_region', database.primaryRegion],
          ['state', database.state],
        ],
        1,
      ),
    );
    if (database.creationTime !== undefined)
      samples.push(sample(METRICS.created, labels, database.creationTime));
    for (const field of DATABASE_LIMIT_FIELDS) {
      const value = database.limits[field];
      if (value !== undefined) samples.push(sample(LIMIT_METRICS[field], labels, value));
    }
    for (const field of DATABASE_FEATURE_FIELDS) {
      const on = database.features[field];
      if (on !== undefined)
        samples.push(sample(SETTINGS.feature, [...labels, ['feature', FEATURE_NAMES[field]]], on ? 1 : 0));
    }
    if (database.replicas !== undefined) samples.push(sample(SETTINGS.replicas, labels, database.replicas));
    if (database.readRegions !== undefined)
      samples.push(sample(SETTINGS.readRegions, labels, database.readRegions));
  }
  return samples;
}

/** What the landing page says of the polled databases: the suspended ones, by ID. */
export function databaseWarnings(polled: readonly Database[]): string[] {
  const suspended = polled
    .filter((database) => database.state === 'suspended')
    .map((database) => database.id);
  if (suspended.length === 0) return [];
  return [`${counted(suspended.length, 'database')} suspended: ${someIds(suspended.sort())}`];
}

/** Management API listing of the account's Redis databases: names, plans, limits, and which to poll. */
export const databases: SourceKind<'databases'> = {
  name: 'databases',
  per: 'account',
  lists: 'database',
  metrics: [
    METRICS.databases,
    METRICS.info,
    METRICS.created,
    ...Object.values(LIMIT_METRICS),
    ...Object.values(SETTINGS),
  ],
  async poll({ client, account, databases: selection, signal, deadline }) {
    const { entries: all, rejected } = await fetchDatabases(client, { ...account, signal, deadline });
    const polled = all.filter((database) => selects(selection, database));
    return {
      samples: databaseSamples(account.name, all, polled),
      rejectedFields: rejected,
      warnings: databaseWarnings(polled),
      discovered: {
        unit: 'database',
        ids: polled.map((database) => database.id),
        names: new Map(polled.map((database) => [database.id, database.name])),
      },
    };
  },
};
