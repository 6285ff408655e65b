import type { Answer } from './answer.js';
import { BodyCache, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { noise, TAU } from './noise.js';

/** The account's global parallelism limit in the simulator. */
export const DEMO_GLOBAL_PARALLELISM_MAX = 50;

/** The body of `GET /v2/globalParallelism`. */
export interface GlobalParallelismBody {
  parallelismMax?: number;
  parallelismCount?: number;
}

/** Global parallelism: a wave that spends a few minutes of every quarter hour at its maximum. */
export class GlobalParallelism implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #bodies: BodyCache;
  #override: GlobalParallelismBody | null = null;

  constructor(ctx: EndpointContext) {
    this.#ctx = ctx;
    this.#bodies = new BodyCache(ctx.frozen);
  }

  /** Serve this body instead of the generated one; `null` goes back to generated data. */
  setOverride(body: GlobalParallelismBody | null): void {
    this.#override = body;
    this.#bodies.clear();
  }

  /** The figures at time t; a count of 0 is left out, as Upstash omits zero values. */
  bodyAt(t: number): GlobalParallelismBody {
    if (this.#override) return { ...this.#override };
    const wave = 0.55 + 0.6 * Math.sin((TAU * t) / 900_000);
    const jitter = 0.1 * (noise(this.#ctx.seed, Math.floor(t / 5000), 23) - 0.5);
    const count = Math.round(DEMO_GLOBAL_PARALLELISM_MAX * Math.min(1, Math.max(0, wave + jitter)));
    return {
      parallelismMax: DEMO_GLOBAL_PARALLELISM_MAX,
      ...(count > 0 && { parallelismCount: count }),
    };
  }

  answer(): Answer {
    return { status: 200, body: this.#bodies.get('', () => this.bodyAt(this.#ctx.now())) };
  }
}

/** QStash `GET /v2/globalParallelism`. */
export const globalParallelismEndpoint = defineEndpoint({
  name: 'global_parallelism',
  credential: 'bearer',
  match: (path) => (path === '/v2/globalParallelism' || path === '/v2/globalParallelism/' ? {} : undefined),
  oversizeFrame: ['{"parallelismMax":1,"padding":"', '"}'],
  create: (ctx) => new GlobalParallelism(ctx),
});
