import { OneBody } from './bodies.js';
import { defineEndpoint } from './endpoint.js';

/** The ranges QStash sends from in the demo: the reference's example two, and two more. */
export const DEMO_EGRESS_RANGES = ['3.125.136.186/32', '18.198.95.233/32', '52.29.71.10/32'] as const;
/** How often the demo's fourth range moves to another address (clock ms): a firewall allowlist breaks. */
export const EGRESS_CHANGE_MS = 90_000;

/** The ranges at `sinceStart` ms after the simulator started: three steady, one that moves. */
export function demoEgressRanges(sinceStart: number): string[] {
  const moved = Math.floor(sinceStart / EGRESS_CHANGE_MS) % 2;
  return [...DEMO_EGRESS_RANGES, `35.157.${moved === 0 ? 12 : 13}.0/28`];
}

/** Management API `GET /v2/qstash/ipv4`: a bare array of CIDR strings. */
export const qstashEgressEndpoint = defineEndpoint({
  name: 'qstash_egress_ips',
  credential: 'basic',
  path: '/v2/qstash/ipv4',
  oversizeFrame: ['["', '"]'],
  create: (ctx) =>
    new OneBody<readonly string[]>(ctx, (t, override) => override ?? demoEgressRanges(t - ctx.origin)),
});
