import { PerIdBodies } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import { formatGoTime } from './go-time.js';
import type { DemoIndex, IndexProduct } from './indexes.js';
import { hashString, noise, round } from './noise.js';

const DAY = 86_400_000;
const GIB = 1024 ** 3;

/** One index's stats at time t, shaped as the Developer API's `VectorStats`. */
function statsBody(index: DemoIndex, origin: number, t: number, seed: number): unknown {
  const salt = seed ^ hashString(index.id);
  const dayStart = Math.floor(t / DAY) * DAY;
  const now = new Date(t);
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const dayFraction = (t - dayStart) / DAY;
  const monthDays = (t - monthStart) / DAY;
  // Over a day, queries climb to `load` of the limit (a free index ends its day near it).
  const perDay = index.maxDailyQueries === -1 ? 100_000 : index.maxDailyQueries;
  const dailyQueries = Math.round(perDay * index.load * Math.min(1, 0.5 + dayFraction));
  const dailyUpdates = Math.round(dailyQueries / 4);
  const monthlyQueries = Math.round(perDay * index.load * 0.8 * monthDays) + dailyQueries;
  const bandwidthCap = index.maxMonthlyBandwidth === -1 ? 100 * GIB : index.maxMonthlyBandwidth;
  // Bandwidth reaches `load` + 40 % of the cap by the month's end: the free Search index crosses 80 %.
  const bandwidth = Math.round(
    bandwidthCap * Math.min(0.99, (index.load + 0.4) * Math.max(0.9, monthDays / 30)),
  );
  const vectors = Math.round(index.maxVectorCount * 0.4 + ((t - origin) / 60_000) * 25);
  const pending =
    index.pendingPerMinute === undefined
      ? Math.round(20 * noise(salt, Math.floor(t / 60_000), 3))
      : 500 + Math.floor((index.pendingPerMinute * (t - origin)) / 60_000);
  // Reranks: a capped index starts the month past 80 % of its quota (the demo's warning), then climbs.
  const reranksPerDay = index.reranksPerDay ?? 0;
  const rerankCap = index.maxMonthlyReranks ?? -1;
  const dailyReranks = Math.round(reranksPerDay * Math.min(1, 0.5 + dayFraction));
  const monthlyReranks =
    rerankCap === -1
      ? Math.round(reranksPerDay * monthDays) + dailyReranks
      : Math.min(rerankCap, Math.round(rerankCap * 0.85 + reranksPerDay * monthDays));
  const reranking = reranksPerDay > 0;
  const minutes = Array.from({ length: 60 }, (_, i) => t - (59 - i) * 60_000);
  const series = (base: number, spread: number, k: number) =>
    minutes.map((at) => ({
      x: formatGoTime(Math.floor(at / 60_000) * 60_000, '000'),
      y: round(base + spread * noise(salt, Math.floor(at / 60_000), k), 2),
    }));
  const daily = (value: number) => [{ x: formatGoTime(dayStart, '244068975'), y: value }];
  return {
    pending_index_count: pending,
    current_vector_count: vectors,
    daily_query_count: dailyQueries,
    daily_update_count: dailyUpdates,
    monthly_query_count: monthlyQueries,
    monthly_update_count: Math.round(monthlyQueries / 4),
    monthly_bandwidth_usage: bandwidth,
    storage_usage: vectors * (index.dimensionCount ?? 256) * 4,
    monthly_cost: index.type === 'payg' ? round((monthlyQueries / 100_000) * 0.4, 2) : 0,
    daily_update_requests: daily(dailyUpdates),
    daily_query_requests: daily(dailyQueries),
    daily_bandwidths: daily(Math.round(bandwidth / Math.max(1, monthDays))),
    days: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
    query_throughput: series(5, 10, 11),
    update_throughput: series(1, 3, 12),
    query_latency_mean: series(4, 3, 13),
    query_latency_99: series(18, 12, 14),
    update_latency_mean: series(6, 4, 15),
    update_latency_99: series(30, 20, 16),
    embeds_latency_mean: series(9, 4, 17),
    embeds_latency_99: series(35, 20, 18),
    vector_count: series(vectors, 0, 19),
    data_size: series(vectors * 76, 0, 20),
    daily_rerank_count: dailyReranks,
    monthly_rerank_count: monthlyReranks,
    daily_rerank_requests: daily(dailyReranks),
    rerank_latency_mean: reranking ? series(60, 30, 21) : series(0, 0, 21),
    rerank_latency_99: reranking ? series(180, 90, 22) : series(0, 0, 22),
  };
}

/**
 * Management API `GET {path}` (`{id}` in it), the stats of each index `product`'s registry lists
 * now; others answer 404. The period query is ignored.
 */
function indexStatsEndpoint<const Name extends string>(name: Name, product: IndexProduct, path: string) {
  return defineEndpoint({
    name,
    credential: 'basic',
    path,
    oversizeFrame: ['{"pending_index_count":0,"padding":"', '"}'],
    create: (ctx) =>
      new PerIdBodies(ctx, ctx.registries.indexes[product], 'index not found', (index, t) =>
        statsBody(index, ctx.origin, t, ctx.seed),
      ),
  });
}

/** Management API `GET /v2/vector/index/{id}/stats`. */
export const vectorStatsEndpoint = indexStatsEndpoint(
  'vector_stats',
  'vector',
  '/v2/vector/index/{id}/stats',
);
/** Management API `GET /v2/search/{id}/stats`. */
export const searchStatsEndpoint = indexStatsEndpoint('search_stats', 'search', '/v2/search/{id}/stats');
