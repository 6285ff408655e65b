import type { Answer } from './answer.js';
import { BodyCache, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { noise, TAU } from './noise.js';

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

/** The simulated queues: a busy one riding a wave, a paused one piling up, an idle FIFO one. */
export class Queues implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #bodies: BodyCache;
  #override: readonly QueueEntry[] | null = null;

  constructor(ctx: EndpointContext) {
    this.#ctx = ctx;
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
    return [
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
  create: (ctx) => new Queues(ctx),
});
