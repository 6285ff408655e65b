import { jsonAnswer } from './answer.js';
import type { Answer } from './answer.js';
import { DEMO_FREE_DATABASE, DatabaseFleet, type DatabasesOptions } from './databases.js';
import { BodyCache, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext, RouteParams } from './endpoint.js';
import { DEMO_BACKED_UP_DATABASE, DEMO_UNPROTECTED_DATABASE, demoRedisSettings } from './redis-settings.js';

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

/** Management API `GET /v2/redis/list-backup/{id}` of the databases that exist; others answer 404. */
export class RedisBackups implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly fleet: DatabaseFleet;
  readonly #bodies: BodyCache;
  readonly #overrides = new Map<string, readonly DemoBackup[]>();

  constructor(ctx: EndpointContext, options: DatabasesOptions) {
    this.#ctx = ctx;
    this.fleet = new DatabaseFleet(ctx, options.databases);
    this.#bodies = new BodyCache(ctx.frozen);
  }

  /** Replace the databases that exist, as the listing does. */
  setDatabases(ids: readonly string[]): void {
    this.fleet.set(ids);
    this.#bodies.clear();
  }

  /** Serve these backups for one database; `null` goes back to generated ones. */
  setBackups(id: string, backups: readonly DemoBackup[] | null): void {
    if (backups === null) this.#overrides.delete(id);
    else this.#overrides.set(id, backups);
    this.#bodies.clear();
  }

  answer(params: RouteParams): Answer {
    const id = params.id ?? '';
    const database = this.fleet.find(id);
    if (database === undefined) return jsonAnswer(404, { error: 'database not found' });
    const body = this.#bodies.get(id, () =>
      (this.#overrides.get(id) ?? demoBackups(id, this.#ctx.now())).map((b) => ({
        database_id: id,
        customer_id: 'demo@example.com',
        name: `${database.name}-${b.backupId.slice(-1)}`,
        backup_id: b.backupId,
        creation_time: Math.floor(b.createdAt / 1000),
        state: b.state,
        backup_size: b.state === 'completed' ? 1_048_576 : 0,
        daily_backup: String(demoRedisSettings(id).dailyBackup),
      })),
    );
    return { status: 200, body };
  }
}

/** Management API `GET /v2/redis/list-backup/{id}`, the ID URL-encoded. */
export const redisBackupsEndpoint = defineEndpoint({
  name: 'redis_backups',
  credential: 'basic',
  match: (path) => {
    const match = /^\/v2\/redis\/list-backup\/([^/]+)\/?$/.exec(path);
    if (match?.[1] === undefined) return undefined;
    try {
      return { id: decodeURIComponent(match[1]) };
    } catch {
      return undefined;
    }
  },
  oversizeFrame: ['[{"backup_id":"', '"}]'],
  create: (ctx, options: DatabasesOptions) => new RedisBackups(ctx, options),
});
