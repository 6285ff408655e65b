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
    expect(ENDPOINTS).toHaveLength(new Set(ENDPOINTS).size);
    expect(new Set(ROUTES).size).toBe(ROUTES.length);
    // The routes a source reads that are not its own name (the second path of each event log, the
    // members of each team) are there too.
    expect(ROUTES).toEqual(
      expect.arrayContaining(['teams', 'team_members', 'qstash_events', 'workflow_events']),
    );
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
