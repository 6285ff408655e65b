import { describe, expect, test } from 'vitest';
import { ENDPOINTS, ROUTES } from '../../src/demo/routes.js';
import { bearer, simulatorsStoppedAfterEach } from './helpers.js';

const start = simulatorsStoppedAfterEach();

/** A path of the route's template, each `{name}` filled with a segment as an ID would be. */
function pathOf(template: string): string {
  return template.replace(/\{\w+\}/g, 'some-id');
}

describe('the simulated routes', () => {
  test('are the Upstash operations the sources read, each once', () => {
    // The sources' own, and the routes a source reads besides (the SDK's path of each event log, a
    // team's members).
    expect(new Set(ROUTES).size).toBe(ROUTES.length);
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

  test('each answers its own path over HTTP, with its own credential', async () => {
    const sim = await start();
    for (const endpoint of ENDPOINTS) {
      const path = pathOf(endpoint.path);
      // Without a credential the route refuses, which only a route that knows the path does.
      expect((await fetch(sim.url + path)).status, path).toBe(401);
      expect(sim.requests(endpoint.name), path).toBe(1);
    }
    expect((await fetch(`${sim.url}/v2/no-such-operation`, { headers: bearer() })).status).toBe(404);
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
