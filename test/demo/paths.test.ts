import { describe, expect, test } from 'vitest';
import { matchPath } from '../../src/demo/paths.js';

describe('matchPath', () => {
  test('a fixed path matches with or without its trailing slash, nothing longer or shorter', () => {
    const match = matchPath('/v2/redis/databases');
    expect(match('/v2/redis/databases')).toEqual({});
    expect(match('/v2/redis/databases/')).toEqual({});
    for (const path of ['/v2/redis/databases//', '/v2/redis/databases/x', '/v2/redis', '/v2/redisXdatabases'])
      expect(match(path)).toBeUndefined();
  });

  test('an ID is one URL-decoded segment, also before a literal tail', () => {
    const stats = matchPath('/v2/vector/index/{id}/stats');
    expect(stats('/v2/vector/index/idx%2Fa%20b/stats/')).toEqual({ id: 'idx/a b' });
    expect(stats('/v2/vector/index/a/b/stats')).toBeUndefined();
    expect(stats('/v2/vector/index//stats')).toBeUndefined();
    expect(matchPath('/v2/redis/stats/{id}')('/v2/redis/stats/caf%C3%A9')).toEqual({ id: 'café' });
  });

  test('a malformed escape names nothing: no match', () => {
    expect(matchPath('/v2/qstash/stats/{id}')('/v2/qstash/stats/%E0%A4%A')).toBeUndefined();
  });

  test('the literal parts are literal, not patterns', () => {
    expect(matchPath('/v2/a.b')('/v2/aXb')).toBeUndefined();
    expect(matchPath('/v2/a.b')('/v2/a.b')).toEqual({});
  });
});
