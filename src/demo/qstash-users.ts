import type { Answer } from './answer.js';
import { BodyCache, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';

/** A QStash instance the simulated management API lists, with the plan figures the demo uses. */
export interface DemoQstashInstance {
  readonly id: string;
  readonly region: 'eu-central-1' | 'us-east-1';
  readonly type: 'free' | 'paid';
  readonly maxRequestsPerDay: number;
  readonly maxDlqSize: number;
  /** Messages added to the dead-letter queue per minute; default 3 on a paid instance, 0 on a free one. */
  readonly dlqPerMinute?: number;
}

/** The instances listed by default: a busy paid one in Europe, a free one near its daily limit in the US. */
export const DEMO_QSTASH_INSTANCES: readonly DemoQstashInstance[] = [
  {
    id: '7f3e2a10-5b1c-4d8e-9a61-2c4b8f0d1e01',
    region: 'eu-central-1',
    type: 'paid',
    maxRequestsPerDay: 500_000,
    maxDlqSize: 1000,
  },
  {
    id: '0c9d8e7f-1a2b-4c3d-8e4f-5a6b7c8d9e02',
    region: 'us-east-1',
    type: 'free',
    maxRequestsPerDay: 1000,
    maxDlqSize: 100,
  },
];

/** The fake token the listing gives an instance (the real one holds credentials; this one looks alike). */
export function demoInstanceToken(id: string, readOnly = false): string {
  return Buffer.from(`demo@example.com:${readOnly ? 'ro-' : ''}demo-qstash-instance-token-${id}`).toString(
    'base64',
  );
}

/** Options of the simulated management QStash endpoints. */
export interface QstashUsersOptions {
  /** The instances the account has; default {@link DEMO_QSTASH_INSTANCES}. */
  qstashInstances?: readonly DemoQstashInstance[];
}

/** Management API `GET /v2/qstash/users`: every instance, with its plan, limits and (fake) tokens. */
export class QstashUsers implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #bodies: BodyCache;
  #instances: readonly DemoQstashInstance[];

  constructor(ctx: EndpointContext, options: QstashUsersOptions) {
    this.#ctx = ctx;
    this.#instances = options.qstashInstances ?? DEMO_QSTASH_INSTANCES;
    this.#bodies = new BodyCache(ctx.frozen);
  }

  /** Replace the instances the account has (the stats of others answer 404). */
  setInstances(instances: readonly DemoQstashInstance[]): void {
    this.#instances = instances;
    this.#bodies.clear();
  }

  answer(): Answer {
    const created = Math.floor(this.#ctx.origin / 1000) - 90 * 86_400;
    return {
      status: 200,
      body: this.#bodies.get('', () =>
        this.#instances.map((i) => ({
          customer_id: 'demo@example.com',
          id: i.id,
          token: demoInstanceToken(i.id),
          read_only_token: demoInstanceToken(i.id, true),
          active: true,
          state: 'active',
          last_plan_upgrade_time: i.type === 'paid' ? created : 0,
          max_message_size: i.type === 'paid' ? 10_485_760 : 1_048_576,
          max_requests_per_day: i.maxRequestsPerDay,
          max_requests_per_day_hard: i.maxRequestsPerDay,
          max_endpoints_per_topic: 100,
          max_requests_per_second: i.type === 'paid' ? 500 : 100,
          max_dlq_size: i.maxDlqSize,
          max_retries: i.type === 'paid' ? 20 : 3,
          max_topics: i.type === 'paid' ? 1000 : 10,
          max_schedules: i.type === 'paid' ? 1000 : 10,
          max_events_size: 10_000,
          max_dlq_retention_time_milis: (i.type === 'paid' ? 30 : 3) * 86_400_000,
          max_delay: 604_800,
          max_parallelism: i.type === 'paid' ? 100 : 2,
          max_global_parallelism: i.type === 'paid' ? 100 : 10,
          max_queues: i.type === 'paid' ? 100 : 10,
          max_bandwidth_per_second: 10_485_760,
          prod_pack_enabled: false,
          prometheus_enabled: 'false',
          timeout: 900,
          type: i.type,
          region: i.region,
          reserved_type: '',
          reserved_price: 0,
          created_by: 'demo@example.com',
          creation_time: created,
          deletion_time: 0,
          budget: i.type === 'paid' ? 50 : 0,
        })),
      ),
    };
  }
}

/** Management API `GET /v2/qstash/users`. */
export const qstashUsersEndpoint = defineEndpoint({
  name: 'qstash_users',
  credential: 'basic',
  match: (path) => (path === '/v2/qstash/users' || path === '/v2/qstash/users/' ? {} : undefined),
  oversizeFrame: ['[{"id":"x","padding":"', '"}]'],
  create: (ctx, options: QstashUsersOptions) => new QstashUsers(ctx, options),
});
