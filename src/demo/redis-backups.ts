import type { Answer } from './answer.js';
import { PerIdBodies } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { DEMO_FREE_DATABASE, type SimulatedDatabase } from './fleet.js';
import { DEMO_BACKED_UP_DATABASE, DEMO_UNPROTECTED_DATABASE, demoRedisSettings } from './redis-settings.js';
import type { RouteParams } from './paths.js';

const HOUR = 3_600_000;

/** One backup as the simulated listing gives it. */
export interface DemoBackup {
  readonly backupId: string;
  readonly state: 'pending' | 'completed' | 'failed';
  /** Unix ms. */
  readonly createdAt: number;
}

/** The database whose latest backup (a manual one) failed after the last that completed. */
export const DEMO_FAILING_BACKUP_DATABASE = DEMO_FREE_DATABASE;

/** The backups database `id` has at time `t` (times relative to it, so they move with the clock). */
export function demoBackups(id: string, t: number): DemoBackup[] {
  const backup = (n: number, state: DemoBackup['state'], hoursAgo: number): DemoBackup => ({
    backupId: `${id}-backup-${n}`,
    state,
    createdAt: t - hoursAgo * HOUR,
  });
  switch (id) {
    case DEMO_BACKED_UP_DATABASE:
      return [
        ...Array.from({ length: 7 }, (_, day) => backup(day, 'completed', 6 + 24 * day)),
        backup(7, 'pending', 0.1),
      ];
    // A failure yesterday, healed by the backup after it.
    case 'db-demo-sessions':
      return [backup(0, 'completed', 6), backup(1, 'failed', 30), backup(2, 'completed', 54)];
    case DEMO_FAILING_BACKUP_DATABASE:
      return [backup(0, 'completed', 20), backup(1, 'failed', 2)];
    case DEMO_UNPROTECTED_DATABASE:
      return [];
    default:
      return [backup(0, 'completed', 10), backup(1, 'completed', 34)];
  }
}

/** One database's backup listing, every field of the OpenAPI's `Backup`. */
function listing(database: SimulatedDatabase, backups: readonly DemoBackup[]): unknown {
  return backups.map((b) => ({
    database_id: database.id,
    customer_id: 'demo@example.com',
    name: `${database.name}-${b.backupId.slice(-1)}`,
    backup_id: b.backupId,
    creation_time: Math.floor(b.createdAt / 1000),
    state: b.state,
    backup_size: b.state === 'completed' ? 1_048_576 : 0,
    daily_backup: String(demoRedisSettings(database.id).dailyBackup),
  }));
}

/**
 * Management API `GET /v2/redis/list-backup/{id}` of the databases listed now (others answer 404):
 * generated backups, or a test's in their place.
 */
export class RedisBackups implements Endpoint {
  readonly #overrides = new Map<string, readonly DemoBackup[]>();
  readonly #bodies: PerIdBodies<SimulatedDatabase>;

  constructor(ctx: EndpointContext) {
    this.#bodies = new PerIdBodies(ctx, ctx.registries.databases, 'database not found', (database, t) =>
      listing(database, this.#overrides.get(database.id) ?? demoBackups(database.id, t)),
    );
  }

  /** Serve these backups for one database; `null` goes back to generated ones. */
  setBackups(id: string, backups: readonly DemoBackup[] | null): void {
    if (backups === null) this.#overrides.delete(id);
    else this.#overrides.set(id, backups);
    this.#bodies.changed();
  }

  answer(params: RouteParams): Answer {
    return this.#bodies.answer(params);
  }
}

/** Management API `GET /v2/redis/list-backup/{id}`, the ID URL-encoded. */
export const redisBackupsEndpoint = defineEndpoint({
  name: 'redis_backups',
  credential: 'basic',
  path: '/v2/redis/list-backup/{id}',
  oversizeFrame: ['[{"backup_id":"', '"}]'],
  create: (ctx) => new RedisBackups(ctx),
});
