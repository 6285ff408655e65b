import { OneBody } from './bodies.js';
import { defineEndpoint, demoThenGenerated } from './endpoint.js';
import type { EndpointContext } from './endpoint.js';
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
 * The simulated queues at time t: a busy one riding a wave, a paused one piling up, an idle FIFO one,
 * and generated ones up to `count`.
 */
function queuesAt(ctx: EndpointContext, count: number, t: number): QueueEntry[] {
  const created = ctx.origin - 30 * DAY_MS;
  const jitter = noise(ctx.seed, Math.floor(t / 5000), 11) - 0.5;
  // Rises to some 400 messages and drains to zero every ten minutes.
  const wave = Math.sin((TAU * t) / 600_000);
  const busyLag = Math.max(0, Math.round(400 * wave + 40 * jitter));
  // Paused since start-up: 120 waiting then, 2 more every minute.
  const pausedLag = 120 + Math.floor((2 * (t - ctx.origin)) / 60_000);
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
      updatedAt: ctx.origin,
      parallelism: 1,
      paused: true,
      lag: pausedLag,
    },
    { name: 'fifo-ledger', createdAt: created, updatedAt: created, parallelism: 1, paused: false, lag: 0 },
  ];
  return demoThenGenerated(demo, count, (index) => generatedQueue(ctx.seed, index, created, t));
}

/** QStash `GET /v2/queues`. */
export const queuesEndpoint = defineEndpoint({
  name: 'queues',
  credential: 'bearer',
  path: '/v2/queues',
  oversizeFrame: ['[{"name":"q","lag":0,"padding":"', '"}]'],
  create: (ctx, options: QueuesOptions) => {
    const count = Math.max(0, options.queues ?? DEMO_QUEUES);
    return new OneBody<readonly QueueEntry[]>(ctx, (t, override) => override ?? queuesAt(ctx, count, t));
  },
});
