import { describe, expect, test } from 'vitest';
import { DEMO_DATABASES, startSimulator } from '../../src/demo/simulator.js';
import { oversizeBody } from '../../src/demo/faults.js';
import { simulatorsStoppedAfterEach, bearer, basic, statsPath, urlGroups, waitFor } from './helpers.js';

const start = simulatorsStoppedAfterEach();

describe('faults', () => {
  test('status with Retry-After for the next N requests, then normal service', async () => {
    const sim = await start();
    sim.setFault('flow_control', { kind: 'status', status: 429, retryAfter: '7', times: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(await res.json()).toEqual({ error: 'Too Many Requests' });
    }
    expect((await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() })).status).toBe(200);
    expect((await fetch(`${sim.url}/v2/topics`, { headers: bearer() })).status).toBe(200);
    expect(sim.requests('flow_control')).toBe(3);
  });

  test("'all' applies to every route until cleared", async () => {
    const sim = await start();
    sim.setFault('all', { kind: 'status', status: 503, body: 'down' });
    for (const [path, headers] of [
      ['/v2/flowControl/', bearer()],
      ['/v2/topics', bearer()],
      [statsPath(DEMO_DATABASES[0]!), basic()],
    ] as const) {
      const res = await fetch(sim.url + path, { headers });
      expect(res.status).toBe(503);
      expect(await res.text()).toBe('down');
    }
    sim.setFault('all', null);
    expect((await fetch(`${sim.url}/v2/topics`, { headers: bearer() })).status).toBe(200);
  });

  test('body and content-type faults', async () => {
    const sim = await start();
    sim.setFault('url_groups', { kind: 'body', body: '{"not": "an array"', times: 1 });
    const bad = await fetch(`${sim.url}/v2/topics`, { headers: bearer() });
    expect(bad.status).toBe(200);
    expect(bad.headers.get('content-type')).toBe('application/json');
    expect(await bad.text()).toBe('{"not": "an array"');

    sim.setFault('url_groups', { kind: 'content-type', contentType: 'text/html' });
    const html = await fetch(`${sim.url}/v2/topics`, { headers: bearer() });
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(Array.isArray(JSON.parse(await html.text()))).toBe(true);
  });

  test('oversize: a JSON body of exactly the requested size, with or without Content-Length', async () => {
    const sim = await start();
    sim.setFault('redis_stats', { kind: 'oversize', bytes: 3_000_000, times: 1 });
    const res = await fetch(sim.url + statsPath(DEMO_DATABASES[0]!), { headers: basic() });
    expect(res.headers.get('content-length')).toBe('3000000');
    expect(JSON.parse(await res.text())).toHaveProperty('padding');

    sim.setFault('flow_control', { kind: 'oversize', bytes: 100_000, chunked: true });
    const chunked = await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() });
    expect(chunked.headers.get('content-length')).toBeNull();
    expect((await chunked.text()).length).toBe(100_000);
  });

  test('reset: headers arrive, then the connection dies mid-body', async () => {
    const sim = await start();
    sim.setFault('url_groups', { kind: 'reset' });
    const res = await fetch(`${sim.url}/v2/topics`, { headers: bearer() });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  test('trickle: headers at once, the valid body slowly', async () => {
    const sim = await start();
    sim.setFault('flow_control', { kind: 'trickle', bytesPerSecond: 20_000 });
    const t0 = Date.now();
    const res = await fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(JSON.parse(body)).toHaveProperty('flowControls');
  });

  test('delay answers normally after the delay', async () => {
    const sim = await start();
    sim.setFault('url_groups', { kind: 'delay', ms: 150, times: 1 });
    const t0 = Date.now();
    expect(await urlGroups(sim)).toHaveLength(4);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  test('stop() resolves promptly with hung and trickling requests outstanding', async () => {
    const sim = await startSimulator();
    sim.setFault('flow_control', { kind: 'hang' });
    sim.setFault('url_groups', { kind: 'trickle', bytesPerSecond: 1 });
    // Settle into values at once: a rejection with no handler yet would be reported as unhandled.
    const outcome = (p: Promise<unknown>): Promise<string> =>
      p.then(
        () => 'answered',
        () => 'failed',
      );
    const hung = outcome(fetch(`${sim.url}/v2/flowControl/`, { headers: bearer() }));
    const slow = outcome(fetch(`${sim.url}/v2/topics`, { headers: bearer() }).then((res) => res.text()));
    await waitFor(() => sim.requests('flow_control') === 1 && sim.requests('url_groups') === 1);
    const t0 = Date.now();
    await sim.stop();
    // A trickle at 1 B/s would take half an hour; a minute is a margin no busy machine takes.
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(await hung).toBe('failed');
    expect(await slow).toBe('failed');
  });
});

describe('the over-size body', () => {
  test('is exactly its size in every frame, and routes of different frames share one padding', () => {
    const short = oversizeBody(['["', '"]'], 1024 * 1024);
    const long = oversizeBody(['{"messages":[],"padding":"', '"}'], 1024 * 1024);
    for (const parts of [short, long]) {
      expect(Buffer.concat(parts).length).toBe(1024 * 1024);
      expect(JSON.parse(Buffer.concat(parts).toString('utf8'))).toBeDefined();
    }
    // Filled once, not again for each request whose frame differs by a few bytes.
    expect(long[1]?.buffer).toBe(short[1]?.buffer);
  });
});
