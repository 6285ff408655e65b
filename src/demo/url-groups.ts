import { OneBody } from './bodies.js';
import { CHURN_PERIOD_MS, churnEpoch, defineEndpoint } from './endpoint.js';
import { between, noise } from './noise.js';

/** A default URL group name containing a quote, a backslash, a newline and non-ASCII text. */
export const DEMO_ODD_URL_GROUP = 'crème-brûlée "beta" \\ v2\nlegacy';

/** One URL group (topic), as QStash returns it. */
export interface UrlGroup {
  name: string;
  createdAt: number;
  updatedAt: number;
  endpoints: { name?: string; url: string }[];
}

/** Options of the simulated `GET /v2/topics`. */
export interface UrlGroupsOptions {
  /** Number of generated URL groups; default 4. */
  urlGroups?: number;
  /** Endpoints of the first (largest) URL group; the others have 1 to 4; default 12. */
  maxEndpoints?: number;
  /** Make the last generated URL group have no endpoints. */
  emptyUrlGroup?: boolean;
}

const NAMED_GROUPS = ['orders', DEMO_ODD_URL_GROUP, 'email-notifications', 'webhooks/stripe'];
const HOSTS = ['api.example.com', 'worker.example.net', 'hooks.example.org', 'eu.example.io'];

function groupName(index: number): string {
  return NAMED_GROUPS[index] ?? `group-${String(index).padStart(5, '0')}`;
}

function slug(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase() || 'group'
  );
}

function makeGroup(seed: number, index: number, name: string, endpoints: number, origin: number): UrlGroup {
  const u = (salt: number): number => noise(seed ^ 0x5a17, index, salt);
  const createdAt = Math.round(origin - between(u(1), 1, 400) * 86_400_000);
  const updatedAt = Math.round(createdAt + u(2) * (origin - createdAt));
  const path = slug(name);
  return {
    name,
    createdAt,
    updatedAt,
    endpoints: Array.from({ length: endpoints }, (_, j) => {
      const url = `https://${HOSTS[(index + j) % HOSTS.length] ?? 'api.example.com'}/qstash/${path}/${j}`;
      // Roughly a third of real endpoints have no name.
      return j % 3 === 2 ? { url } : { name: `${path}-${j}`, url };
    }),
  };
}

interface GroupPlan {
  count: number;
  maxEndpoints: number;
  emptyLast: boolean;
  origin: number;
}

/** Endpoint count of group i: the first is large, the others small, never zero unless asked. */
function endpointCount(seed: number, index: number, plan: GroupPlan): number {
  if (plan.emptyLast && index === plan.count - 1) return 0;
  if (index === 0) return plan.maxEndpoints;
  return 1 + Math.floor(noise(seed, index, 0x3e) * Math.min(4, plan.maxEndpoints));
}

function generateUrlGroups(seed: number, t: number, plan: GroupPlan, churn: boolean): UrlGroup[] {
  const all = Array.from({ length: plan.count }, (_, i) =>
    makeGroup(seed, i, groupName(i), endpointCount(seed, i, plan), plan.origin),
  );
  if (!churn) return all;
  const epoch = churnEpoch(t);
  const kept = all.filter((_, i) => noise(seed, i, epoch ^ 0x6f) < 0.75);
  const fresh = Array.from({ length: Math.ceil(plan.count / 4) }, (_, j) =>
    makeGroup(seed, plan.count + j, `preview-${epoch}-${j}`, 1 + (j % 3), epoch * CHURN_PERIOD_MS),
  );
  return [...kept, ...fresh];
}

/** QStash `GET /v2/topics`, with or without the trailing slash: generated groups, or a test's override. */
export const urlGroupsEndpoint = defineEndpoint({
  name: 'url_groups',
  credential: 'bearer',
  path: '/v2/topics',
  oversizeFrame: ['[{"name":"padding","createdAt":0,"updatedAt":0,"endpoints":[],"padding":"', '"}]'],
  create: (ctx, options: UrlGroupsOptions) => {
    const plan: GroupPlan = {
      count: options.urlGroups ?? NAMED_GROUPS.length,
      maxEndpoints: Math.max(1, options.maxEndpoints ?? 12),
      emptyLast: options.emptyUrlGroup ?? false,
      origin: ctx.origin,
    };
    return new OneBody<readonly UrlGroup[]>(
      ctx,
      (t, override) => override ?? generateUrlGroups(ctx.seed, t, plan, ctx.churn),
    );
  },
});
