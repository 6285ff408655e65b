import { describe, expect, test } from 'vitest';
import { ENDPOINTS, ROUTES } from '../../src/demo/routes.js';
import { SOURCES } from '../../src/source-registry.js';

/** A path of the route's template, each `{name}` filled with a segment as an ID would be. */
function pathOf(template: string): string {
  return template.replace(/\{\w+\}/g, 'some-id');
}

describe('the simulated routes', () => {
  test('are every endpoint each row of the registry names, each once', async () => {
    const named = await Promise.all(Object.values(SOURCES).map((row) => row.simulator()));
    expect(new Set(ENDPOINTS)).toEqual(new Set(named.flat()));
    // Every Upstash operation the simulator served before the registry, each once: the sources' own,
    // and the routes a source reads besides (the second path of each event log, a team's members).
    expect([...ROUTES].sort()).toEqual([
      'audit_logs',
      'databases',
      'dlq',
      'flow_control',
      'global_parallelism',
      'qstash_egress_ips',
      'qstash_events',
      'qstash_logs',
      'qstash_stats',
      'qstash_users',
      'queues',
      'redis_backups',
      'redis_stats',
      'schedules',
      'search_indexes',
      'search_stats',
      'team_members',
      'teams',
      'url_groups',
      'vector_indexes',
      'vector_stats',
      'workflow_dlq',
      'workflow_events',
      'workflow_logs',
    ]);
  });

  test('no path is two routes: the order of the table cannot shadow a route', () => {
    for (const endpoint of ENDPOINTS) {
      for (const path of [pathOf(endpoint.path), `${pathOf(endpoint.path)}/`]) {
        const matching = ENDPOINTS.filter((candidate) => candidate.match(path) !== undefined);
        expect(
          matching.map((candidate) => candidate.name),
          path,
        ).toEqual([endpoint.name]);
      }
    }
  });

  test('a route takes its parameters from its own path', () => {
    const stats = ENDPOINTS.find((endpoint) => endpoint.name === 'redis_stats');
    expect(stats?.path).toBe('/v2/redis/stats/{id}');
    expect(stats?.match('/v2/redis/stats/db%2F1')).toEqual({ id: 'db/1' });
  });
});
