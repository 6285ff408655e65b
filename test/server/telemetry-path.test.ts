import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkTelemetryPath } from '../../src/config/addresses.js';
import { FIXED_PATHS } from '../../src/fixed-paths.js';
import { httpCall, startHarness, type Harness } from '../helpers/harness.js';

// `--web.telemetry-path`, as node_exporter's: the metrics move to the path given, and nothing else does.

describe('--web.telemetry-path', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ telemetryPath: '/prometheus/metrics', intervalSeconds: 30 });
  });
  afterAll(async () => h.stop());

  test('serves the metrics at the path given, with GET and HEAD, and /metrics no longer', async () => {
    const metrics = await h.get('/prometheus/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.body).toMatch(/^# TYPE upstash_exporter_polls_total counter$/m);
    const head = await httpCall(`${h.base}/prometheus/metrics`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const post = await httpCall(`${h.base}/prometheus/metrics`, 'POST');
    expect(post.status).toBe(405);
    for (const path of ['/metrics', '/prometheus', '/prometheus/metrics/']) {
      expect((await h.get(path)).status, path).toBe(404);
    }
  });

  test('leaves the landing page and the probes where they are; the page links to the new path', async () => {
    const landing = await h.get('/');
    expect(landing.status).toBe(200);
    expect(landing.body).toContain('<a href="./prometheus/metrics">/prometheus/metrics</a>');
    // Ready or not yet (a first poll may still run): answered, not 404.
    for (const path of ['/healthz', '/readyz', '/-/healthy', '/-/ready'])
      expect([200, 503], path).toContain((await h.get(path)).status);
  });

  test('cannot take a path the server answers already: every fixed path answers, and the config refuses each', async () => {
    for (const path of FIXED_PATHS.keys()) {
      // GET, so /-/reload answers 405 (POST reloads: its own test file); none is unknown to the server.
      expect((await h.get(path)).status, path).not.toBe(404);
      expect(checkTelemetryPath(path), path).toMatch(/^must not be .*, which the exporter serves already/);
    }
    expect([...FIXED_PATHS.keys()]).toEqual([
      '/',
      '/healthz',
      '/readyz',
      '/-/healthy',
      '/-/ready',
      '/-/reload',
    ]);
  });
});
