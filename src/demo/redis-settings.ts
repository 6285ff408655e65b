// What the demo fleet's databases say about their safety: the settings of their listing entries and
// which of them the backup listing shows in each state. Read by the listing and the backups alike.

/** The database of the demo fleet whose backups all succeed, daily, with one in progress. */
export const DEMO_BACKED_UP_DATABASE = 'db-demo-cache';
/** The database whose latest backup failed, and whose last completed one is days old. */
export const DEMO_FAILING_BACKUP_DATABASE = 'db-demo-sessions';
/** The database without any backup, and with TLS and daily backups off. */
export const DEMO_UNPROTECTED_DATABASE = 'db-demo-events';

/** The settings the database listing reports that the demo varies per database. */
export interface DemoRedisSettings {
  readonly tls: boolean;
  readonly dailyBackup: boolean;
  readonly eviction: boolean;
  readonly replicas: number;
  readonly readRegions: readonly string[];
}

/** The listing's settings of database `id`: the demo fleet's own, or plain ones (TLS on, no backups). */
export function demoRedisSettings(id: string): DemoRedisSettings {
  switch (id) {
    case DEMO_BACKED_UP_DATABASE:
      return {
        tls: true,
        dailyBackup: true,
        eviction: true,
        replicas: 3,
        readRegions: ['us-west-1', 'eu-west-1'],
      };
    case DEMO_FAILING_BACKUP_DATABASE:
      return { tls: true, dailyBackup: true, eviction: false, replicas: 1, readRegions: [] };
    case DEMO_UNPROTECTED_DATABASE:
      return { tls: false, dailyBackup: false, eviction: false, replicas: 1, readRegions: [] };
    default:
      return { tls: true, dailyBackup: false, eviction: false, replicas: 1, readRegions: [] };
  }
}
