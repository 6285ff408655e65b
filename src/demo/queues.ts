import type { Answer } from './answer.js';
import { BodyCache, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { between, noise, TAU } from './noise.js';

/** One queue, as QStash's `GET /v2/queues` returns it. */
export interface QueueEntry {
  name: string;
  createdAt: number;
  updatedAt: number;
  parallelism: number;
  paused: boolean;
  lag: number;
}

/** The queue whose lag rises and drains; the paused one whose backlog only grows. */
export const DEMO_BUSY_QUEUE = 'orders';
export const DEMO_PAUSED_QUEUE = 'invoices-paused';

const DAY_MS = 86_400_000;
/** The demo's own queues: the busy, the paused and the FIFO one. */
const DEMO_QUEUES = 3;

/** Options of the simulated `GET /v2/queues`. */
export interface QueuesOptions {
  /** Number of queues; default 3 (the busy, paused and FIFO ones); any more are generated. */
  queues?: number;
}

/** A generated queue: half of them idle, the others with a backlog riding a wave, a few paused. */
function generatedQueue(seed: number, index: number, created: number, t: number): QueueEntry {
  const u = (salt: number): number => noise(seed ^ 0x9e3e, index, salt);
  const wave = 1 + 0.5 * Math.sin((TAU * t) / 600_000 + u(3) * TAU);
  return {
    name: `queue-${String(index).padStart(5, '0')}`,
    createdAt: created,
    updatedAt: created,
    parallelism: [1, 2, 4, 8][Math.floor(u(4) * 4)] ?? 1,
    paused: u(5) < 0.05,
    lag: u(1) < 0.5 ? 0 : Math.round(between(u(2), 1, 500) * wave),
  };
}

/**
 * The simulated queues: a busy one riding a wave, a paused one piling up, an idle FIFO one, and as
 * many generated ones as asked for.
 */
export class Queues implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #count: number;
  readonly #bodies: BodyCache;
  #override: readonly QueueEntry[] | null = null;

  constructor(ctx: EndpointContext, options: QueuesOptions) {
    this.#ctx = ctx;
    this.#count = Math.max(0, options.queues ?? DEMO_QUEUES);
    this.#bodies = new BodyCache(ctx.frozen);
  }

  /** The queues at time t. */
  entriesAt(t: number): QueueEntry[] {
    if (this.#override) return this.#override.map((q) => ({ ...q }));
    const created = this.#ctx.origin - 30 * DAY_MS;
    const jitter = noise(this.#ctx.seed, Math.floor(t / 5000), 11) - 0.5;
    // Rises to some 400 messages and drains to zero every ten minutes.
    const wave = Math.sin((TAU * t) / 600_000);
    const busyLag = Math.max(0, Math.round(400 * wave + 40 * jitter));
    // Paused since start-up: 120 waiting then, 2 more every minute.
    const pausedLag = 120 + Math.floor((2 * (t - this.#ctx.origin)) / 60_000);
    const demo: QueueEntry[] = [
      {
        name: DEMO_BUSY_QUEUE,
        createdAt: created,
        updatedAt: created,
        parallelism: 4,
        paused: false,
        lag: busyLag,
      },
      {
        name: DEMO_PAUSED_QUEUE,
        createdAt: created,
        updatedAt: this.#ctx.origin,
        parallelism: 1,
        paused: true,
        lag: pausedLag,
      },
      { name: 'fifo-ledger', createdAt: created, updatedAt: created, parallelism: 1, paused: false, lag: 0 },
    ];
    const generated = Array.from({ length: Math.max(0, this.#count - DEMO_QUEUES) }, (_, k) =>
      generatedQueue(this.#ctx.seed, DEMO_QUEUES + k, created, t),
    );
    return [...demo.slice(0, this.#count), ...generated];
  }

  /** Serve these queues instead of generated ones; `null` goes back to generated data. */
  setOverride(entries: readonly QueueEntry[] | null): void {
    this.#override = entries;
    this.#bodies.clear();
  }

  answer(): Answer {
    return { status: 200, body: this.#bodies.get('', () => this.entriesAt(this.#ctx.now())) };
  }
}

/** QStash `GET /v2/queues`. */
export const queuesEndpoint = defineEndpoint({
  name: 'queues',
  credential: 'bearer',
  match: (path) => (path === '/v2/queues' || path === '/v2/queues/' ? {} : undefined),
  oversizeFrame: ['[{"name":"q","lag":0,"padding":"', '"}]'],
  create: (ctx, options: QueuesOptions) => new Queues(ctx, options),
});
