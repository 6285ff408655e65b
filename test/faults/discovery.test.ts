import { describe, expect, test } from 'vitest';
import { valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { eventually, useHarness } from '../helpers/harness.js';

// Discovery against the real exporter (createApp) polling the simulator every second: databases
// appear and vanish with the listing, include/exclude filter them, a failing listing keeps the last
// known set polled, and the listing's credentials are never logged, exported or shown.

const start = useHarness();

const statsUp = (samples: ParsedSample[], id: string): number | undefined =>
  valueOf(samples, 'upstash_up', { source: 'redis_stats', account: 'main', database_id: id });
const statsPolls = (samples: ParsedSample[], id: string): number =>
  valueOf(samples, 'upstash_exporter_polls_total', {
    source: 'redis_stats',
    account: 'main',
    database_id: id,
  }) ?? 0;
const polled = (samples: ParsedSample[]): string[] =>
  samples
    .filter((s) => s.name === 'upstash_up' && s.labels.source === 'redis_stats')
    .map((s) => s.labels.database_id ?? '')
    .sort();
const info = (samples: ParsedSample[]): string[] =>
  samples
    .filter((s) => s.name === 'upstash_redis_database_info')
    .map((s) => s.labels.database_id ?? '')
    .sort();

describe('discovery', () => {
  test('databases appear and vanish with the listing, stats and health series together', async () => {
    const h = await start({ discover: true, sim: { databases: ['db-a', 'db-b'] } });
    await eventually('both databases polled', async () => {
      const { samples } = await h.scrape();
      return statsUp(samples, 'db-a') === 1 && statsUp(samples, 'db-b') === 1 ? true : undefined;
    });
    h.sim.setDatabases(['db-b', 'db-c']);
    const after = await eventually('db-c in, db-a out', async () => {
      const { samples } = await h.scrape();
      return statsUp(samples, 'db-c') === 1 && statsUp(samples, 'db-a') === undefined ? samples : undefined;
    });
    expect(polled(after)).toEqual(['db-b', 'db-c']);
    expect(info(after)).toEqual(['db-b', 'db-c']);
    expect(
      valueOf(after, 'upstash_redis_connections', { account: 'main', database_id: 'db-a' }),
    ).toBeUndefined();
    expect(valueOf(after, 'upstash_redis_databases', { account: 'main' })).toBe(2);
  });

  test('include/exclude choose the polled databases; the count is of all of them', async () => {
    const h = await start({
      discover: true,
      include: ['prod-.*', 'db-.*'],
      exclude: ['db-b'],
      sim: { databases: ['db-a', 'db-b', 'other'] },
    });
    const samples = await eventually('db-a polled', async () => {
      const scraped = (await h.scrape()).samples;
      return statsUp(scraped, 'db-a') === 1 ? scraped : undefined;
    });
    expect(polled(samples)).toEqual(['db-a']);
    expect(info(samples)).toEqual(['db-a']);
    expect(valueOf(samples, 'upstash_redis_databases', { account: 'main' })).toBe(3);
  });

  test('a failing listing keeps the last known databases polled', async () => {
    const h = await start({ discover: true, sim: { databases: ['db-a', 'db-b'] } });
    await eventually('both databases polled', async () => {
      const { samples } = await h.scrape();
      return statsUp(samples, 'db-a') === 1 && statsUp(samples, 'db-b') === 1 ? true : undefined;
    });
    h.sim.setFault('databases', { kind: 'status', status: 500 });
    // Gone upstream, but the listing cannot say so: db-b is still polled (and now answers 404).
    h.sim.setDatabases(['db-a']);
    const failing = await eventually('the listing down', async () => {
      const { samples } = await h.scrape();
      return valueOf(samples, 'upstash_up', { source: 'databases', account: 'main' }) === 0
        ? samples
        : undefined;
    });
    const before = statsPolls(failing, 'db-b');
    const later = await eventually('db-b polled again', async () => {
      const { samples } = await h.scrape();
      return statsPolls(samples, 'db-b') >= before + 2 ? samples : undefined;
    });
    expect(polled(later)).toEqual(['db-a', 'db-b']);
    expect(statsUp(later, 'db-a')).toBe(1);
    // The listing comes back: db-b goes.
    h.sim.setFault('databases', null);
    const healed = await eventually('db-b dropped', async () => {
      const { samples } = await h.scrape();
      return statsUp(samples, 'db-b') === undefined ? samples : undefined;
    });
    expect(polled(healed)).toEqual(['db-a']);
  });

  test('no credential of the listing reaches the logs (debug), /metrics or the landing page', async () => {
    const h = await start({ discover: true, logLevel: 'debug' });
    const raw = await (
      await fetch(`${h.sim.url}/v2/redis/databases`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${h.config.management[0]!.email}:${h.config.management[0]!.apiKey.reveal()}`).toString('base64')}`,
        },
      })
    ).json();
    const secrets = (raw as Record<string, string>[]).flatMap((d) => [
      d.password!,
      d.rest_token!,
      d.read_only_rest_token!,
    ]);
    expect(secrets.length).toBeGreaterThan(3);
    await eventually('stats of a discovered database', async () => {
      const { samples } = await h.scrape();
      return statsUp(samples, (raw as { database_id: string }[])[0]!.database_id) === 1 ? true : undefined;
    });
    // A listing that fails its schema, credentials beside the bad field: the error must not carry them.
    h.sim.setFault('databases', {
      kind: 'body',
      body: JSON.stringify([{ database_name: 5, password: secrets[0], rest_token: secrets[1] }]),
    });
    await eventually('the bad listing counted', async () => {
      const { samples } = await h.scrape();
      return (valueOf(samples, 'upstash_exporter_poll_failures_total', {
        source: 'databases',
        account: 'main',
        reason: 'invalid_response',
      }) ?? 0) >= 1
        ? true
        : undefined;
    });
    const metrics = (await h.scrape()).text;
    const landing = (await h.get('/')).body;
    const logs = h.logs.join('\n');
    expect(logs).toContain('"level":"debug"');
    for (const secret of secrets) {
      expect(metrics).not.toContain(secret);
      expect(landing).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(`${metrics}${landing}${logs}`).not.toContain('SIMULATED-');
  });

  test('a wrong-typed stats field is skipped alone and counted; upstash_up stays 1', async () => {
    const h = await start({ sim: { databases: ['db-a'] }, databases: ['db-a'] });
    const point = { x: '2026-01-01 00:00:00 +0000 UTC', y: 7 };
    h.sim.setFault('redis_stats', {
      kind: 'body',
      body: JSON.stringify({
        keyspace: [point],
        dailyproduce: 0,
        current_storage: 'n/a',
        latency_99: [{ y: 1 }],
      }),
    });
    const samples = await eventually('the rejected fields counted', async () => {
      const scraped = (await h.scrape()).samples;
      return valueOf(scraped, 'upstash_exporter_fields_rejected_total', { field: 'latency_99' }) !== undefined
        ? scraped
        : undefined;
    });
    expect(statsUp(samples, 'db-a')).toBe(1);
    expect(valueOf(samples, 'upstash_redis_keys', { account: 'main', database_id: 'db-a' })).toBe(7);
    const rejected = samples
      .filter((s) => s.name === 'upstash_exporter_fields_rejected_total')
      .map((s) => `${s.labels.source}/${s.labels.database_id}/${s.labels.field}`)
      .sort();
    expect(rejected).toEqual([
      'redis_stats/db-a/current_storage',
      'redis_stats/db-a/dailyproduce',
      'redis_stats/db-a/latency_99',
    ]);
    // Logged at warn once per field, not at every poll.
    const warned = h.logs.filter((line) => line.includes('"field":"dailyproduce"'));
    expect(warned.length).toBe(1);
  });
});
