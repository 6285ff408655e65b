import { afterEach, expect, test } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { find, valueOf } from './exposition-parser.js';
import { DATABASES, eventually, leakedSecret, startHarness, type Harness } from './harness.js';

// What SIGHUP does once main has validated the new configuration: app.reload(). (An invalid
// configuration never reaches it: main logs the problems and keeps the running one.)

const running: Harness[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((h) => h.stop()));
});

test('reload applies new credentials and sources; removed sources take their series along', async () => {
  const h = await startHarness({ intervalSeconds: 1 });
  running.push(h);
  const beta = { source: 'redis_stats', account: 'main', database_id: 'db-beta' };
  const flow = { source: 'flow_control', account: 'eu', database_id: '' };
  await eventually('both databases up', async () => {
    const { samples } = await h.scrape();
    return valueOf(samples, 'upstash_up', beta) === 1 && valueOf(samples, 'upstash_up', flow) === 1
      ? true
      : undefined;
  });

  const [qstash] = h.config.qstash;
  const [management] = h.config.management;
  await h.app.reload({
    ...h.config,
    qstash: [{ ...qstash!, token: new Secret('rotated-but-wrong-token-SECRET') }],
    management: [{ ...management!, databases: [DATABASES[0]!] }],
  });

  const after = await eventually('the wrong token counted as unauthorized', async () => {
    const { samples } = await h.scrape();
    return (valueOf(samples, 'upstash_exporter_poll_failures_total', { ...flow, reason: 'unauthorized' }) ??
      0) > 0
      ? samples
      : undefined;
  });
  expect(valueOf(after, 'upstash_up', flow)).toBe(0);
  // db-beta is no longer configured: neither its data nor its health series linger.
  expect(find(after, 'upstash_redis_connections', { database_id: 'db-beta' })).toEqual([]);
  expect(find(after, 'upstash_up', { database_id: 'db-beta' })).toEqual([]);
  expect(valueOf(after, 'upstash_up', { ...beta, database_id: 'db-alpha' })).toBe(1);
  // Still ready: a reload does not send the exporter back to "waiting for the first poll".
  expect((await h.get('/readyz')).status).toBe(200);
  expect(h.logs.some((line) => line.includes('configuration reloaded'))).toBe(true);
  expect(leakedSecret(h.logs.join(''))).toBeUndefined();
  expect(h.logs.join('')).not.toContain('rotated-but-wrong-token-SECRET');
});

test('a credential bound for plain http on a non-loopback host is warned about', async () => {
  const h = await startHarness({ intervalSeconds: 30 });
  running.push(h);
  expect(h.logs.some((line) => line.includes('plain http'))).toBe(false);
  const [qstash] = h.config.qstash;
  // TEST-NET-1: never routed, and the warning is what matters, not the poll.
  await h.app.reload({ ...h.config, qstash: [{ ...qstash!, url: 'http://192.0.2.1:9' }] });
  const warning = h.logs.find((line) => line.includes('plain http'));
  expect(warning).toBeDefined();
  expect(JSON.parse(warning!)).toMatchObject({ level: 'warn', qstash: 'eu', host: '192.0.2.1:9' });
});
