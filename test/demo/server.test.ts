import { get } from 'node:http';
import { describe, expect, test } from 'vitest';
import { DEMO_DATABASES, DEMO_QSTASH_TOKEN } from '../../src/demo/simulator.js';
import { simulatorsStoppedAfterEach, bearer, basic, statsPath, urlGroups } from './helpers.js';

const start = simulatorsStoppedAfterEach();

describe('auth', () => {
  test('QStash routes answer 401 with a JSON error without or with a wrong token', async () => {
    const sim = await start();
    for (const path of ['/v2/flowControl/', '/v2/topics']) {
      for (const headers of [{}, bearer('nope'), basic()]) {
        const res = await fetch(sim.url + path, { headers });
        expect(res.status).toBe(401);
        expect(await res.json()).toHaveProperty('error');
      }
    }
  });

  test('stats answer 401 without Basic auth or with a wrong key, 200 with the right one', async () => {
    const sim = await start({ email: 'ops@example.com', apiKey: 'k1' });
    const path = statsPath(DEMO_DATABASES[0]!);
    for (const headers of [{}, bearer(), basic('ops@example.com', 'k2'), basic('x@example.com', 'k1')]) {
      const res = await fetch(sim.url + path, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toHaveProperty('error');
    }
    expect((await fetch(sim.url + path, { headers: basic('ops@example.com', 'k1') })).status).toBe(200);
  });
});

describe('routes', () => {
  test('onRequest hears every routed request with its raw path, whatever its outcome', async () => {
    const heard: [string, string][] = [];
    const sim = await start({ onRequest: (route, path) => heard.push([route, path]) });
    await fetch(sim.url + statsPath('db/odd id'), { headers: basic() });
    await fetch(`${sim.url}/v2/topics?x=1`);
    await fetch(`${sim.url}/v2/messages`, { headers: bearer() });
    expect(heard).toEqual([
      ['redis_stats', '/v2/redis/stats/db%2Fodd%20id'],
      ['url_groups', '/v2/topics?x=1'],
    ]);
  });

  test('unknown paths answer 404 and other methods 405', async () => {
    const sim = await start();
    expect((await fetch(`${sim.url}/v2/messages`, { headers: bearer() })).status).toBe(404);
    const res = await fetch(`${sim.url}/v2/topics`, { method: 'POST', headers: bearer(), body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(sim.requests('url_groups')).toBe(1);
  });
});

describe('introspection', () => {
  test('counters, last headers and connections', async () => {
    const sim = await start();
    await fetch(`${sim.url}/v2/topics`, { headers: { ...bearer(), 'user-agent': 'upstash-exporter/test' } });
    expect(sim.requests('url_groups')).toBe(1);
    expect(sim.requests('redis_stats')).toBe(0);
    expect(sim.lastHeaders('url_groups')?.['user-agent']).toBe('upstash-exporter/test');
    expect(sim.lastHeaders('url_groups')?.authorization).toBe(`Bearer ${DEMO_QSTASH_TOKEN}`);
    expect(sim.lastHeaders('flow_control')).toBeUndefined();

    const opened = sim.connectionsOpened;
    for (let i = 0; i < 2; i++) {
      await new Promise<void>((resolve, reject) => {
        get(`${sim.url}/v2/topics`, { agent: false, headers: bearer() }, (res) => {
          res.resume();
          res.on('end', resolve);
        }).on('error', reject);
      });
    }
    expect(sim.connectionsOpened).toBe(opened + 2);
  });

  test('restart() listens again on the same port, keeping counters', async () => {
    const sim = await start();
    const url = sim.url;
    await urlGroups(sim);
    await sim.stop();
    await expect(fetch(`${url}/v2/topics`, { headers: bearer() })).rejects.toThrow();
    await sim.restart();
    expect(sim.url).toBe(url);
    expect(await urlGroups(sim)).toHaveLength(4);
    expect(sim.requests('url_groups')).toBe(2);
  });
});
