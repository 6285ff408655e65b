import { describe, expect, test } from 'vitest';
import {
  DEMO_BACKED_UP_DATABASE,
  DEMO_SEARCH_INDEXES,
  DEMO_UNPROTECTED_DATABASE,
  DEMO_VECTOR_INDEXES,
  demoIndexToken,
  type DemoIndex,
} from '../../src/demo/simulator.js';
import { valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import {
  API_KEY,
  DATABASES,
  EMAIL,
  eventually,
  leakedSecret,
  useHarness,
  type Harness,
} from '../helpers/harness.js';

// The platform view (docs/metrics.md, Redis settings and backups, and Vector and Search indexes)
// against the real exporter (createApp) polling the simulator over HTTP:
// the Vector and Search indexes and their stats, the Redis backups and the settings of the database
// listing, by value; discovery; -1 limits; max_indexes; tokens nowhere; a fault on each new path.

const FROZEN_NOW = Date.UTC(2026, 10, 1, 12, 0, 0);
const [DOCS, FREE, HYBRID] = DEMO_VECTOR_INDEXES as [DemoIndex, DemoIndex, DemoIndex];
const [PRODUCTS, BLOG] = DEMO_SEARCH_INDEXES as [DemoIndex, DemoIndex];
const INDEX_SOURCES = ['vector_indexes', 'vector_stats', 'search_indexes', 'search_stats'] as const;

const harness = useHarness({
  intervalSeconds: 1,
  qstashSources: [],
  managementSources: ['databases', 'redis_stats', 'redis_backups', ...INDEX_SOURCES],
  sim: { frozen: true, now: () => FROZEN_NOW },
});

/** What the simulator itself answers on `path`: the figures the exporter must export. */
async function upstream(h: Harness, path: string): Promise<Record<string, unknown>> {
  const authorization = `Basic ${Buffer.from(`${EMAIL}:${API_KEY}`).toString('base64')}`;
  const response = await fetch(`${h.sim.url}${path}`, { headers: { authorization } });
  return (await response.json()) as Record<string, unknown>;
}

const up = (samples: ParsedSample[], source: string, labels: Record<string, string> = {}) =>
  valueOf(samples, 'upstash_up', { source, account: 'main', ...labels });

async function allUp(h: Harness, check: (samples: ParsedSample[]) => boolean): Promise<ParsedSample[]> {
  return eventually('every new source polled', async () => {
    const { samples } = await h.scrape();
    return check(samples) ? samples : undefined;
  });
}

describe('Vector and Search indexes', () => {
  test('each metric by value, -1 limits as -1, info labels; the stats follow the listing', async () => {
    const h = await harness();
    const ids = [DOCS, FREE, HYBRID].map((i) => i.id);
    const samples = await allUp(h, (s) =>
      [
        ...ids.map((id) => up(s, 'vector_stats', { index_id: id })),
        up(s, 'search_stats', { index_id: BLOG.id }),
      ].every((v) => v === 1),
    );
    const at = (name: string, labels: Record<string, string>) => valueOf(samples, name, labels);
    const index = { account: 'main', index_id: DOCS.id };

    expect(at('upstash_vector_indexes', { account: 'main' })).toBe(3);
    expect(at('upstash_vector_indexes_omitted', { account: 'main' })).toBe(0);
    expect(at('upstash_search_indexes', { account: 'main' })).toBe(2);
    expect(
      at('upstash_vector_index_info', {
        ...index,
        index_name: 'docs-embeddings',
        type: 'payg',
        region: 'us-east-1',
        similarity_function: 'COSINE',
        index_type: 'DENSE',
        dimension_count: '384',
      }),
    ).toBe(1);
    expect(
      at('upstash_search_index_info', {
        account: 'main',
        index_id: BLOG.id,
        index_name: 'blog-search-free',
        type: 'free',
        region: 'eu-west-1',
      }),
    ).toBe(1);
    // -1 is Upstash's "unlimited", exported as it is.
    expect(at('upstash_vector_max_daily_queries', index)).toBe(-1);
    expect(at('upstash_vector_max_daily_updates', index)).toBe(-1);
    expect(at('upstash_vector_max_monthly_bandwidth_bytes', index)).toBe(-1);
    const free = { account: 'main', index_id: FREE.id };
    expect(at('upstash_vector_max_daily_queries', free)).toBe(10_000);
    expect(at('upstash_vector_max_monthly_bandwidth_bytes', free)).toBe(50 * 1024 ** 3);
    expect(at('upstash_vector_max_vectors', free)).toBe(200_000);
    expect(at('upstash_vector_max_queries_per_second', free)).toBe(100);
    expect(at('upstash_vector_max_writes_per_second', free)).toBe(100);
    expect(at('upstash_search_max_monthly_bandwidth_bytes', { account: 'main', index_id: PRODUCTS.id })).toBe(
      -1,
    );
    // The rerank quota: a Search listing's, -1 unlimited; a Vector listing has none.
    expect(at('upstash_search_max_monthly_reranks', { account: 'main', index_id: PRODUCTS.id })).toBe(-1);
    expect(at('upstash_search_max_monthly_reranks', { account: 'main', index_id: BLOG.id })).toBe(1000);
    expect(samples.filter((s) => s.name === 'upstash_vector_max_monthly_reranks')).toEqual([]);

    for (const [product, id] of [
      ['vector', FREE.id],
      ['search', BLOG.id],
    ] as const) {
      const path = product === 'vector' ? `/v2/vector/index/${id}/stats` : `/v2/search/${id}/stats`;
      const body = await upstream(h, path);
      const labels = { account: 'main', index_id: id };
      const metric = (suffix: string) => valueOf(samples, `upstash_${product}_${suffix}`, labels);
      expect(metric('vectors')).toBe(body.current_vector_count);
      expect(metric('pending_vectors')).toBe(body.pending_index_count);
      expect(metric('daily_queries')).toBe(body.daily_query_count);
      expect(metric('daily_updates')).toBe(body.daily_update_count);
      expect(metric('monthly_queries')).toBe(body.monthly_query_count);
      expect(metric('monthly_updates')).toBe(body.monthly_update_count);
      expect(metric('monthly_bandwidth_bytes')).toBe(body.monthly_bandwidth_usage);
      expect(metric('storage_bytes')).toBe(body.storage_usage);
      expect(metric('monthly_cost_dollars')).toBe(body.monthly_cost);
      expect(metric('daily_reranks')).toBe(body.daily_rerank_count);
      expect(metric('monthly_reranks')).toBe(body.monthly_rerank_count);
      // Rerank and embedding latency: Upstash's milliseconds in seconds.
      for (const [suffix, field] of [
        ['rerank_latency_mean_seconds', 'rerank_latency_mean'],
        ['rerank_latency_p99_seconds', 'rerank_latency_99'],
        ['embed_latency_mean_seconds', 'embeds_latency_mean'],
        ['embed_latency_p99_seconds', 'embeds_latency_99'],
      ] as const) {
        const points = body[field] as { x: string; y: number }[];
        expect(metric(suffix), field).toBe(points.at(-1)!.y / 1000);
      }
      // The latest point of each latency series, as reported (no unit conversion).
      for (const [suffix, field] of [
        ['query_latency_mean', 'query_latency_mean'],
        ['query_latency_p99', 'query_latency_99'],
        ['update_latency_mean', 'update_latency_mean'],
        ['update_latency_p99', 'update_latency_99'],
      ] as const) {
        const points = body[field] as { x: string; y: number }[];
        expect(metric(suffix), field).toBe(points.at(-1)?.y);
      }
    }
    expect(h.sim.lastPath('vector_stats')).toMatch(/^\/v2\/vector\/index\/[0-9a-f-]+\/stats$/);
    expect(h.sim.lastPath('search_stats')).toMatch(/^\/v2\/search\/[0-9a-f-]+\/stats$/);
  });

  test('an index that appears is polled, one that vanishes loses its series; the listing’s tokens are nowhere', async () => {
    const h = await harness();
    const vectors = (s: ParsedSample[], id: string) =>
      valueOf(s, 'upstash_vector_vectors', { account: 'main', index_id: id });
    await allUp(h, (s) => vectors(s, HYBRID.id) !== undefined);

    h.sim.setIndexes('vector', [DOCS]);
    const gone = await allUp(h, (s) => up(s, 'vector_stats', { index_id: HYBRID.id }) === undefined);
    expect(vectors(gone, HYBRID.id)).toBeUndefined();
    expect(valueOf(gone, 'upstash_vector_index_info', { index_id: FREE.id })).toBeUndefined();
    expect(valueOf(gone, 'upstash_vector_indexes', { account: 'main' })).toBe(1);
    expect(up(gone, 'vector_stats', { index_id: DOCS.id })).toBe(1);

    const added: DemoIndex = { ...FREE, id: 'index-added-later', name: 'added' };
    h.sim.setIndexes('vector', [DOCS, added]);
    const back = await allUp(h, (s) => vectors(s, added.id) !== undefined);
    expect(up(back, 'vector_stats', { index_id: added.id })).toBe(1);

    // The tokens of the listings (debug logs, /metrics, the landing page).
    expect(h.logs.join('')).not.toContain(demoIndexToken(DOCS.id));
    expect(leakedSecret(h.logs.join(''))).toBeUndefined();
    expect(leakedSecret((await h.get('/metrics')).body)).toBeUndefined();
    expect(leakedSecret((await h.get('/')).body)).toBeUndefined();
  });

  test('while the listing fails, its last indexes keep being polled', async () => {
    const h = await harness();
    await allUp(h, (s) => up(s, 'vector_stats', { index_id: HYBRID.id }) === 1);
    h.sim.setFault('vector_indexes', { kind: 'status', status: 503 });
    const failing = await allUp(h, (s) => up(s, 'vector_indexes') === 0);
    expect(up(failing, 'vector_stats', { index_id: HYBRID.id })).toBe(1);
    const stillPolled = h.sim.requests('vector_stats');
    await eventually('stats still polled', () =>
      h.sim.requests('vector_stats') > stillPolled + 3 ? true : undefined,
    );
  });

  test('limits.max_indexes keeps the first by name and counts the rest as omitted', async () => {
    const h = await harness({ limits: { maxIndexes: 1 } });
    const samples = await allUp(h, (s) => up(s, 'vector_stats', { index_id: DOCS.id }) === 1);
    expect(valueOf(samples, 'upstash_vector_indexes', { account: 'main' })).toBe(3);
    expect(valueOf(samples, 'upstash_vector_indexes_omitted', { account: 'main' })).toBe(2);
    // docs-embeddings < hobby-free < recs-hybrid; blog-search-free < products-search.
    const polled = samples.filter((s) => s.name === 'upstash_up' && s.labels.source === 'vector_stats');
    expect(polled.map((s) => s.labels.index_id)).toEqual([DOCS.id]);
    expect(up(samples, 'search_stats', { index_id: BLOG.id })).toBe(1);
    expect(up(samples, 'search_stats', { index_id: PRODUCTS.id })).toBeUndefined();
  });

  test('a listing that fails its schema names the path, never a token', async () => {
    const token = demoIndexToken('x-broken');
    const h = await harness();
    h.sim.setFault('search_indexes', {
      kind: 'body',
      body: JSON.stringify([{ name: 'no-id', token, read_only_token: token }]),
    });
    const failed = await allUp(
      h,
      (s) =>
        (valueOf(s, 'upstash_exporter_poll_failures_total', {
          source: 'search_indexes',
          reason: 'invalid_response',
        }) ?? 0) >= 1,
    );
    expect(up(failed, 'search_indexes')).toBe(0);
    const errors = h.logs.filter(
      (line) => line.includes('"source":"search_indexes"') && line.includes('poll failed'),
    );
    expect(errors.join('')).toContain('[0].id');
    expect(h.logs.join('')).not.toContain(token);
    expect((await h.get('/')).body).not.toContain(token);
  });

  test('a stats field of the wrong type is skipped alone and counted', async () => {
    const h = await harness();
    h.sim.setIndexes('vector', [DOCS]);
    h.sim.setFault('vector_stats', {
      kind: 'body',
      body: '{"current_vector_count": "12", "pending_index_count": 7, "query_latency_99": [{"y": 3}]}',
    });
    const samples = await allUp(
      h,
      (s) => valueOf(s, 'upstash_vector_pending_vectors', { index_id: DOCS.id }) === 7,
    );
    expect(up(samples, 'vector_stats', { index_id: DOCS.id })).toBe(1);
    expect(valueOf(samples, 'upstash_vector_vectors', { index_id: DOCS.id })).toBeUndefined();
    for (const field of ['current_vector_count', 'query_latency_99']) {
      expect(
        valueOf(samples, 'upstash_exporter_fields_rejected_total', {
          source: 'vector_stats',
          index_id: DOCS.id,
          field,
        }),
        field,
      ).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('Redis backups and settings', () => {
  const [ALPHA, BETA] = DATABASES as [string, string];
  const now = Math.floor(FROZEN_NOW / 1000);

  test('backups in each state and none: all three states counted, the latest times only when there are', async () => {
    const h = await harness();
    h.sim.setBackups(ALPHA, [
      { backupId: 'a1', state: 'completed', createdAt: FROZEN_NOW - 7_200_000 },
      { backupId: 'a2', state: 'completed', createdAt: FROZEN_NOW - 3_600_000 },
      { backupId: 'a3', state: 'failed', createdAt: FROZEN_NOW - 600_000 },
      { backupId: 'a4', state: 'pending', createdAt: FROZEN_NOW },
    ]);
    h.sim.setBackups(BETA, []);
    const backups = (s: ParsedSample[], id: string, state: string) =>
      valueOf(s, 'upstash_redis_backups', { account: 'main', database_id: id, state });
    const samples = await allUp(
      h,
      (s) => backups(s, ALPHA, 'failed') === 1 && backups(s, BETA, 'completed') === 0,
    );
    expect(backups(samples, ALPHA, 'completed')).toBe(2);
    expect(backups(samples, ALPHA, 'pending')).toBe(1);
    const alpha = { account: 'main', database_id: ALPHA };
    expect(valueOf(samples, 'upstash_redis_backup_last_completed_timestamp_seconds', alpha)).toBe(now - 3600);
    expect(valueOf(samples, 'upstash_redis_backup_last_failed_timestamp_seconds', alpha)).toBe(now - 600);
    // None: every state present at 0, no timestamps.
    for (const state of ['pending', 'completed', 'failed']) expect(backups(samples, BETA, state)).toBe(0);
    const beta = { account: 'main', database_id: BETA };
    expect(valueOf(samples, 'upstash_redis_backup_last_completed_timestamp_seconds', beta)).toBeUndefined();
    expect(valueOf(samples, 'upstash_redis_backup_last_failed_timestamp_seconds', beta)).toBeUndefined();
    expect(h.sim.lastPath('redis_backups')).toMatch(/^\/v2\/redis\/list-backup\/db-(alpha|beta)$/);
  });

  test('backups run on their own schedule (backups_interval), not the entry’s', async () => {
    const h = await harness({
      // Once a year: only the start-up poll happens during the test.
      managementSchedules: { backups: { cron: '0 0 0 1 1 *', intervalMs: 365 * 86_400_000 } },
    });
    await allUp(h, (s) => up(s, 'redis_backups', { database_id: ALPHA }) === 1);
    const stats = h.sim.requests('redis_stats');
    await eventually('redis_stats polled again', () =>
      h.sim.requests('redis_stats') >= stats + 4 ? true : undefined,
    );
    expect(h.sim.requests('redis_backups')).toBe(DATABASES.length);
  });

  test('the listing’s settings: features (only those present), replicas and read regions', async () => {
    const h = await harness({ databases: [DEMO_BACKED_UP_DATABASE, DEMO_UNPROTECTED_DATABASE] });
    const samples = await allUp(h, (s) => up(s, 'databases') === 1);
    const feature = (id: string, name: string) =>
      valueOf(samples, 'upstash_redis_feature_enabled', { account: 'main', database_id: id, feature: name });
    const [safe, unprotected] = [DEMO_BACKED_UP_DATABASE, DEMO_UNPROTECTED_DATABASE];
    expect(feature(safe, 'tls')).toBe(1);
    expect(feature(safe, 'daily_backup')).toBe(1);
    expect(feature(safe, 'eviction')).toBe(1);
    expect(feature(unprotected, 'tls')).toBe(0);
    expect(feature(unprotected, 'daily_backup')).toBe(0);
    // prometheus_enabled arrives as the string "false".
    expect(feature(unprotected, 'native_prometheus')).toBe(0);
    // securityAddons and the ACL (docs/metrics.md, Redis settings and backups), from the same listing (no
    // request of their own).
    expect(feature(safe, 'ip_allowlist')).toBe(1);
    expect(feature(safe, 'mtls')).toBe(1);
    expect(feature(safe, 'encryption_at_rest')).toBe(1);
    expect(feature(safe, 'acl')).toBe(1);
    expect(feature(safe, 'vpc_peering')).toBe(0);
    for (const name of ['ip_allowlist', 'vpc_peering', 'private_link', 'mtls', 'encryption_at_rest', 'acl'])
      expect(feature(unprotected, name)).toBe(0);
    expect(valueOf(samples, 'upstash_redis_replicas', { database_id: safe })).toBe(3);
    expect(valueOf(samples, 'upstash_redis_read_regions', { database_id: safe })).toBe(2);
    expect(valueOf(samples, 'upstash_redis_read_regions', { database_id: unprotected })).toBe(0);
  });
});

describe('a fault on each new path fails that source alone, under its reason', () => {
  test.each([
    ['vector_indexes', 'vector_indexes', {}],
    ['vector_stats', 'vector_stats', { index_id: DOCS.id }],
    ['search_indexes', 'search_indexes', {}],
    ['search_stats', 'search_stats', { index_id: BLOG.id }],
    ['redis_backups', 'redis_backups', { database_id: 'db-alpha' }],
  ] as const)('%s', { timeout: 30_000 }, async (route, source, labels) => {
    const h = await harness();
    await allUp(h, (s) => up(s, source, labels) === 1);
    h.sim.setFault(route, { kind: 'status', status: 429 });
    const failed = await allUp(
      h,
      (s) =>
        (valueOf(s, 'upstash_exporter_poll_failures_total', { source, ...labels, reason: 'rate_limited' }) ??
          0) >= 1,
    );
    expect(up(failed, source, labels)).toBe(0);
    // The others stay up.
    for (const other of ['databases', ...INDEX_SOURCES.filter((s) => s !== source)]) {
      const series = failed.filter((s) => s.name === 'upstash_up' && s.labels.source === other);
      expect(series.length, other).toBeGreaterThan(0);
      expect(
        series.every((s) => s.value === 1),
        other,
      ).toBe(true);
    }
    h.sim.setFault(route, null);
    await allUp(h, (s) => up(s, source, labels) === 1);
  });
});
