import { listingBody } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import type { DemoQstashInstance } from './qstash-instances.js';

/** The fake token the listing gives an instance (the real one holds credentials; this one looks alike). */
export function demoInstanceToken(id: string, readOnly = false): string {
  return Buffer.from(`demo@example.com:${readOnly ? 'ro-' : ''}demo-qstash-instance-token-${id}`).toString(
    'base64',
  );
}

/** One instance as the listing has it: its plan, limits and (fake) tokens. */
function listingEntry(i: DemoQstashInstance, created: number): Record<string, unknown> {
  return {
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
  };
}

/** Management API `GET /v2/qstash/users`: every instance the registry lists. */
export const qstashUsersEndpoint = defineEndpoint({
  name: 'qstash_users',
  credential: 'basic',
  path: '/v2/qstash/users',
  oversizeFrame: ['[{"id":"x","padding":"', '"}]'],
  create: (ctx) => {
    const created = Math.floor(ctx.origin / 1000) - 90 * 86_400;
    return listingBody(ctx, ctx.registries.qstashInstances, (i) => listingEntry(i, created));
  },
});
