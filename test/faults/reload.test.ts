import { expect, test } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import type { QstashAccount } from '../../src/config/types.js';
import { find, valueOf } from '../helpers/exposition-parser.js';
import { DATABASES, eventually, httpCall, leakedSecret, useHarness } from '../helpers/harness.js';

// What SIGHUP does once main has validated the new configuration: app.reload(). (An invalid
// configuration never reaches it: main logs the problems and keeps the running one.)

const start = useHarness();

test('reload applies new credentials and sources; removed sources take their series along', async () => {
  const h = await start({ intervalSeconds: 1 });
  const beta = {
    source: 'redis_stats',
    account: 'main',
    database_id: 'db-beta',
    qstash_id: '',
    index_id: '',
  };
  const flow = { source: 'flow_control', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
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
  const h = await start({ intervalSeconds: 30 });
  expect(h.logs.some((line) => line.includes('plain http'))).toBe(false);
  const [qstash] = h.config.qstash;
  // TEST-NET-1: never routed, and the warning is what matters, not the poll.
  await h.app.reload({ ...h.config, qstash: [{ ...qstash!, url: 'http://192.0.2.1:9' }] });
  const warning = h.logs.find((line) => line.includes('plain http'));
  expect(warning).toBeDefined();
  expect(JSON.parse(warning!)).toMatchObject({ level: 'warn', qstash: 'eu', host: '192.0.2.1:9' });
});

test('reloads during a Retry-After wait send nothing early, re-poll nothing, and the books balance', async () => {
  const h = await start({ intervalSeconds: 2 });
  const flow = { source: 'flow_control', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
  const groups = { source: 'url_groups', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
  // Ten minutes: still holding at the end of the test, however long a busy machine makes it.
  h.sim.setFault('flow_control', { kind: 'status', status: 429, retryAfter: '600' });
  await eventually('rate limited', async () => {
    const { samples } = await h.scrape();
    return (valueOf(samples, 'upstash_exporter_poll_failures_total', { ...flow, reason: 'rate_limited' }) ??
      0) > 0
      ? true
      : undefined;
  });
  const flowRequests = h.sim.requests('flow_control');
  const groupRequests = h.sim.requests('url_groups');
  const reloadsFrom = Date.now();
  for (let i = 0; i < 10; i++) {
    await h.app.reload(h.config);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // The Retry-After still holds, and the other source kept its 2 s schedule: no poll per reload, at
  // most one per tick in the time this took (about 2.5 s, more on a busy machine: a span of E ms
  // holds at most E / 2000 + 1 ticks), and one more for a tick already under way.
  expect(h.sim.requests('flow_control')).toBe(flowRequests);
  const ticks = Math.floor((Date.now() - reloadsFrom) / 2000) + 1;
  expect(h.sim.requests('url_groups') - groupRequests).toBeLessThanOrEqual(ticks + 1);
  await eventually('the books balance with no poll in flight', async () => {
    const { samples } = await h.scrape();
    const started = (labels: typeof flow) => valueOf(samples, 'upstash_exporter_polls_total', labels) ?? NaN;
    const failed = find(samples, 'upstash_exporter_poll_failures_total', flow).reduce(
      (n, s) => n + s.value,
      0,
    );
    const sent = find(samples, 'upstash_exporter_api_requests_total', { api: 'qstash' }).reduce(
      (n, s) => n + s.value,
      0,
    );
    // The books balance: every poll of the always-429 source ended as a failure, every poll of the
    // healthy one sent exactly one request, and every request counted reached Upstash.
    return started(flow) === failed &&
      started(groups) === h.sim.requests('url_groups') &&
      sent === h.sim.requests('url_groups') + h.sim.requests('flow_control')
      ? true
      : undefined;
  });
  expect(valueOf((await h.scrape()).samples, 'upstash_up', flow)).toBe(0);
});

test('a reload the poll worker refuses answers failed and leaves the running configuration whole', async () => {
  const h = await start({ intervalSeconds: 30 });
  await eventually('ready', async () => ((await h.get('/readyz')).status === 200 ? true : undefined));
  const [qstash] = h.config.qstash;
  const refused = {
    ...h.config,
    webEnableLifecycle: true,
    metrics: { allow: [], deny: ['upstash_qstash_flow_control_.*'] },
    // A configuration the schema would not pass (a DLQ source without its schedule): the worker's
    // poll plan throws on it, as it would on a bug of ours.
    qstash: [{ ...qstash!, sources: ['dlq' as const], ownSchedules: {} as QstashAccount['ownSchedules'] }],
  };
  expect(await h.app.reload(refused)).toEqual({ result: 'failed' });
  expect(h.logs.some((line) => line.includes('"msg":"reload failed"'))).toBe(true);
  // Nothing of it applies on this thread either: not its lists, not its --web.enable-lifecycle.
  expect((await h.get('/metrics')).body).toContain('upstash_qstash_flow_control_');
  expect((await httpCall(`${h.base}/-/reload`, 'POST')).status).toBe(403);
  // The worker runs the configuration it ran, and a valid reload goes through.
  expect(await h.app.reload(h.config)).toEqual({ result: 'applied' });
});
