import { OneBody } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import { noise, TAU } from './noise.js';

/** The account's global parallelism limit in the simulator. */
export const DEMO_GLOBAL_PARALLELISM_MAX = 50;

/** The body of `GET /v2/globalParallelism`. */
export interface GlobalParallelismBody {
  parallelismMax?: number;
  parallelismCount?: number;
}

/**
 * Global parallelism at time t: a wave that spends a few minutes of every quarter hour at its maximum.
 * A count of 0 is left out, as Upstash omits zero values.
 */
function parallelismAt(seed: number, t: number): GlobalParallelismBody {
  const wave = 0.55 + 0.6 * Math.sin((TAU * t) / 900_000);
  const jitter = 0.1 * (noise(seed, Math.floor(t / 5000), 23) - 0.5);
  const count = Math.round(DEMO_GLOBAL_PARALLELISM_MAX * Math.min(1, Math.max(0, wave + jitter)));
  return {
    parallelismMax: DEMO_GLOBAL_PARALLELISM_MAX,
    ...(count > 0 && { parallelismCount: count }),
  };
}

/** QStash `GET /v2/globalParallelism`. */
export const globalParallelismEndpoint = defineEndpoint({
  name: 'global_parallelism',
  credential: 'bearer',
  path: '/v2/globalParallelism',
  oversizeFrame: ['{"parallelismMax":1,"padding":"', '"}'],
  create: (ctx) =>
    new OneBody<GlobalParallelismBody>(ctx, (t, override) => override ?? parallelismAt(ctx.seed, t)),
});
