import { databaseRegistry, type DatabasesOptions, type SimulatedDatabase } from './fleet.js';
import {
  DEMO_SEARCH_INDEXES,
  DEMO_VECTOR_INDEXES,
  type DemoIndex,
  type IndexesOptions,
  type IndexProduct,
} from './indexes.js';
import {
  DEMO_QSTASH_INSTANCES,
  type DemoQstashInstance,
  type QstashUsersOptions,
} from './qstash-instances.js';
import { Registry } from './registry.js';
import { DEMO_TEAMS, type DemoTeam } from './team-roster.js';

/**
 * One registry per listing of the simulated account, shared by the listing's endpoint and the per-ID
 * endpoints of what it lists. A new listing: its registry here, then its endpoints read it from the context.
 */
export interface Registries {
  /**
   * `GET /v2/redis/databases`, and per database `GET /v2/redis/stats/{id}` and
   * `GET /v2/redis/list-backup/{id}`.
   */
  readonly databases: Registry<SimulatedDatabase>;
  /** `GET /v2/qstash/users`, and per instance `GET /v2/qstash/stats/{id}`. */
  readonly qstashInstances: Registry<DemoQstashInstance>;
  /**
   * Per product, `GET /v2/vector/index` and per index `GET /v2/vector/index/{id}/stats`;
   * `GET /v2/search` and per index `GET /v2/search/{id}/stats`.
   */
  readonly indexes: Readonly<Record<IndexProduct, Registry<DemoIndex>>>;
  /** `GET /v2/teams`, and per team `GET /v2/teams/{team_id}`. */
  readonly teams: Registry<DemoTeam>;
}

/** Options of every listing. */
export interface RegistriesOptions extends DatabasesOptions, QstashUsersOptions, IndexesOptions {}

/** The registries of one simulator, on its clock (`now` stands still at `origin` when frozen). */
export function createRegistries(now: () => number, origin: number, options: RegistriesOptions): Registries {
  return {
    databases: databaseRegistry(now, origin, options.databases),
    qstashInstances: new Registry(now, options.qstashInstances ?? DEMO_QSTASH_INSTANCES),
    indexes: {
      vector: new Registry(now, options.vectorIndexes ?? DEMO_VECTOR_INDEXES),
      search: new Registry(now, options.searchIndexes ?? DEMO_SEARCH_INDEXES),
    },
    teams: new Registry(now, DEMO_TEAMS),
  };
}
