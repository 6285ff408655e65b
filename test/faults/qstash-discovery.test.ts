import { expect, test } from 'vitest';
import { DEMO_QSTASH_INSTANCES } from '../../src/demo/simulator.js';
import { valueOf } from '../helpers/exposition-parser.js';
import { eventually, leakedSecret, useHarness, type Harness } from '../helpers/harness.js';

const [EU, US] = DEMO_QSTASH_INSTANCES;
const start = useHarness({
  intervalSeconds: 1,
  qstashSources: [],
  managementSources: ['qstash_users', 'qstash_stats'],
});

test('qstash_stats polls the instances qstash_users lists; one that vanishes loses its series; no token anywhere', async () => {
  const h = await start();
  const dlq = (samples: Awaited<ReturnType<Harness['scrape']>>['samples'], id: string) =>
    valueOf(samples, 'upstash_qstash_dlq_messages', { account: 'main', qstash_id: id });
  const upOf = (samples: Awaited<ReturnType<Harness['scrape']>>['samples'], id: string) =>
    valueOf(samples, 'upstash_up', { source: 'qstash_stats', account: 'main', qstash_id: id });

  await eventually('both instances polled', async () => {
    const { samples } = await h.scrape();
    return dlq(samples, EU!.id) !== undefined && dlq(samples, US!.id) !== undefined ? true : undefined;
  });
  expect(h.sim.lastPath('qstash_stats')).toMatch(/^\/v2\/qstash\/stats\/[0-9a-f-]+$/);

  h.sim.setQstashInstances([EU!]);
  const after = await eventually('the vanished instance is gone', async () => {
    const { samples } = await h.scrape();
    return upOf(samples, US!.id) === undefined ? samples : undefined;
  });
  expect(dlq(after, US!.id)).toBeUndefined();
  expect(dlq(after, EU!.id)).toBeDefined();
  expect(upOf(after, EU!.id)).toBe(1);
  expect(
    valueOf(after, 'upstash_qstash_instance_info', { qstash_id: US!.id }),
    'the listing no longer exports it either',
  ).toBeUndefined();

  // The listing's tokens never reach the logs (debug level), /metrics or the landing page.
  expect(leakedSecret(h.logs.join(''))).toBeUndefined();
  expect(leakedSecret((await h.get('/metrics')).body)).toBeUndefined();
  expect(leakedSecret((await h.get('/')).body)).toBeUndefined();
});

test('a qstash_stats field of the wrong type is skipped alone and counted; the source stays up', async () => {
  const h = await start();
  h.sim.setQstashInstances([EU!]);
  h.sim.setFault('qstash_stats', {
    kind: 'body',
    body: '{"dlq_message_count": "17", "total_monthly_billing": 4.5, "daily_requests": 12}',
  });
  const labels = { source: 'qstash_stats', account: 'main', database_id: '', qstash_id: EU!.id };
  const samples = await eventually('the rejected fields counted', async () => {
    const { samples } = await h.scrape();
    const rejected = (field: string) =>
      valueOf(samples, 'upstash_exporter_fields_rejected_total', { ...labels, field }) ?? 0;
    return rejected('dlq_message_count') >= 1 && rejected('daily_requests') >= 1 ? samples : undefined;
  });
  expect(valueOf(samples, 'upstash_up', labels)).toBe(1);
  expect(valueOf(samples, 'upstash_qstash_monthly_billing_dollars', { qstash_id: EU!.id })).toBe(4.5);
  expect(valueOf(samples, 'upstash_qstash_dlq_messages', { qstash_id: EU!.id })).toBeUndefined();
  // Logged at warn once per field, not once per poll.
  const warned = h.logs.filter(
    (line) => line.includes('field rejected') && line.includes('"dlq_message_count"'),
  );
  expect(warned.length).toBe(1);
});
