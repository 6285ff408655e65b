import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import {
  DATABASE_LIMIT_FIELDS,
  fetchDatabases,
  type Database,
  type DatabaseLimitField,
} from '../upstash/databases.js';
import { POLLED_MANAGEMENT, type DatabaseSelection, type SourceKind } from './source.js';

const METRICS = {
  databases: gauge(
    'upstash_redis_databases',
    `Redis databases the account lists, before include/exclude (count). ${POLLED_MANAGEMENT}`,
  ),
  info: gauge(
    'upstash_redis_database_info',
    `A polled Redis database: its name, plan type, region, primary region and state (always 1). ${POLLED_MANAGEMENT}`,
  ),
  created: gauge(
    'upstash_redis_database_created_timestamp_seconds',
    `When the database was created (Unix time in seconds). ${POLLED_MANAGEMENT}`,
  ),
};

/** Limit gauges by listing field, in exposition order. */
const LIMIT_METRICS: Record<DatabaseLimitField, DataMetric> = {
  db_max_clients: gauge(
    'upstash_redis_max_clients',
    `Most concurrent client connections the database accepts (count). ${POLLED_MANAGEMENT}`,
  ),
  db_max_commands_per_second: gauge(
    'upstash_redis_max_commands_per_second',
    `Most commands per second the database accepts (commands per second). ${POLLED_MANAGEMENT}`,
  ),
  db_request_limit: gauge(
    'upstash_redis_request_limit',
    `Request limit of the database, as reported by Upstash (count; 8.02e18 means no limit). ${POLLED_MANAGEMENT}`,
  ),
  db_max_request_size: gauge(
    'upstash_redis_max_request_size_bytes',
    `Largest request the database accepts (bytes). ${POLLED_MANAGEMENT}`,
  ),
  db_max_entry_size: gauge(
    'upstash_redis_max_entry_size_bytes',
    `Largest entry the database accepts (bytes). ${POLLED_MANAGEMENT}`,
  ),
  db_disk_threshold: gauge(
    'upstash_redis_disk_limit_bytes',
    `Disk the database may use (bytes). ${POLLED_MANAGEMENT}`,
  ),
  db_memory_threshold: gauge(
    'upstash_redis_memory_limit_bytes',
    `Memory the database may use (bytes). ${POLLED_MANAGEMENT}`,
  ),
  budget: gauge(
    'upstash_redis_budget_dollars',
    `Monthly budget of the database (US dollars). ${POLLED_MANAGEMENT}`,
  ),
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
  }
  return samples;
}

/** Management API listing of the account's Redis databases: names, plans, limits, and which to poll. */
export const databases: SourceKind<'databases'> = {
  name: 'databases',
  api: 'management',
  per: 'account',
  lists: 'database',
  metrics: [METRICS.databases, METRICS.info, METRICS.created, ...Object.values(LIMIT_METRICS)],
  async poll({ client, account, databases: selection, signal, deadline }) {
    const { entries: all, rejected } = await fetchDatabases(client, { ...account, signal, deadline });
    const polled = all.filter((database) => selects(selection, database));
    return {
      samples: databaseSamples(account.name, all, polled),
      rejectedFields: rejected,
      discovered: {
        unit: 'database',
        ids: polled.map((database) => database.id),
        names: new Map(polled.map((database) => [database.id, database.name])),
      },
    };
  },
};
