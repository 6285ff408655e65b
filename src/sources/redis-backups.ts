import { gauge } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { BACKUP_STATES, fetchBackups, type BackupSummary } from '../upstash/redis-backups.js';
import type { SourceKind } from './source.js';
import { polled } from './source.js';

const POLLED = polled('redis_backups');

const METRICS = {
  backups: gauge(
    'upstash_redis_backups',
    `Backups of the database, by state: pending, completed, failed (count). ${POLLED}`,
  ),
  lastCompleted: gauge(
    'upstash_redis_backup_last_completed_timestamp_seconds',
    `When the newest completed backup of the database was made (Unix time in seconds); absent when none. ${POLLED}`,
  ),
  lastFailed: gauge(
    'upstash_redis_backup_last_failed_timestamp_seconds',
    `When the newest failed backup of the database was made (Unix time in seconds); absent when none. ${POLLED}`,
  ),
};

/** The samples of one database's backups: every state counted, and the latest times there are. */
export function backupSamples(account: string, databaseId: string, backups: BackupSummary): Sample[] {
  const labels = [
    ['account', account],
    ['database_id', databaseId],
  ] as const;
  const samples = BACKUP_STATES.map((state) =>
    sample(METRICS.backups, [...labels, ['state', state]], backups.counts[state]),
  );
  if (backups.lastCompleted !== undefined)
    samples.push(sample(METRICS.lastCompleted, labels, backups.lastCompleted));
  if (backups.lastFailed !== undefined) samples.push(sample(METRICS.lastFailed, labels, backups.lastFailed));
  return samples;
}

/** `GET /v2/redis/list-backup/{id}`: the backups of one polled database, on `backups_interval`. */
export const redisBackups: SourceKind<'redis_backups'> = {
  name: 'redis_backups',
  per: 'database',
  metrics: Object.values(METRICS),
  async poll({ client, account, unit, signal, deadline }) {
    const backups = await fetchBackups(client, { ...account, databaseId: unit, signal, deadline });
    return { samples: backupSamples(account.name, unit, backups), rejectedFields: backups.rejected };
  },
};
