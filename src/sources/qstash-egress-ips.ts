import { gauge } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { fetchQstashEgressIps } from '../upstash/qstash-egress-ips.js';
import { counted, polled, type SourceKind } from './source.js';

const POLLED = polled('qstash_egress_ips');

/** Ranges exported one by one at most (docs/metrics.md, The account's safety); the count says them all. */
export const MAX_EGRESS_RANGES = 100;

const METRICS = {
  ranges: gauge(
    'upstash_qstash_egress_ip_ranges',
    `Address ranges QStash sends its requests from (count). ${POLLED}`,
  ),
  info: gauge(
    'upstash_qstash_egress_ip_range_info',
    `An address range QStash sends its requests from, by cidr (always 1; at most ${MAX_EGRESS_RANGES}, the first in address order as text). A change breaks firewall allowlists. ${POLLED}`,
  ),
};

/** The samples of QStash's outgoing ranges: how many, and one info series per range up to the cap. */
export function egressSamples(account: string, ranges: readonly string[]): Sample[] {
  const labels = [['account', account]] as const;
  const shown = [...ranges].sort().slice(0, MAX_EGRESS_RANGES);
  return [
    sample(METRICS.ranges, labels, ranges.length),
    ...shown.map((cidr) => sample(METRICS.info, [...labels, ['cidr', cidr]], 1)),
  ];
}

/** QStash's outgoing IPv4 ranges, on `audit_interval` (docs/configuration.md), with the entry's credentials. */
export const qstashEgressIps: SourceKind<'qstash_egress_ips'> = {
  name: 'qstash_egress_ips',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, signal, deadline }) {
    const ranges = await fetchQstashEgressIps(client, { ...account, signal, deadline });
    const left = Math.max(0, ranges.length - MAX_EGRESS_RANGES);
    return {
      samples: egressSamples(account.name, ranges),
      labelValuesDropped: left,
      ...(left > 0 && {
        warnings: [
          `${counted(left, 'range')} not exported one by one: at most ${MAX_EGRESS_RANGES} are (upstash_qstash_egress_ip_ranges counts them all)`,
        ],
      }),
    };
  },
};
