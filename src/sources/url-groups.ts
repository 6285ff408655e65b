import { gauge } from '../metrics/catalogue.js';
import { keepLargest, sample, type Sample } from '../metrics/sample.js';
import { fetchUrlGroups, type UrlGroup } from '../upstash/url-groups.js';
import { polled, type SourceKind } from './source.js';

const POLLED = polled('url_groups');

const METRICS = {
  groups: gauge(
    'upstash_qstash_url_groups',
    `URL groups upstream, including any omitted by max_url_groups (count). ${POLLED}`,
  ),
  groupsOmitted: gauge(
    'upstash_qstash_url_groups_omitted',
    `URL groups not exported because of max_url_groups; the groups with most endpoints are kept (count). ${POLLED}`,
  ),
  endpoints: gauge('upstash_qstash_url_group_endpoints', `Endpoints in a URL group (count). ${POLLED}`),
  created: gauge(
    'upstash_qstash_url_group_created_timestamp_seconds',
    `When the URL group was created (Unix time in seconds). ${POLLED}`,
    1000,
  ),
  updated: gauge(
    'upstash_qstash_url_group_updated_timestamp_seconds',
    `When the URL group was last updated (Unix time in seconds). ${POLLED}`,
    1000,
  ),
};

/** The URL group samples of one account; above `limit`, the groups with most endpoints are kept. */
export function urlGroupSamples(account: string, groups: readonly UrlGroup[], limit: number): Sample[] {
  const kept = keepLargest(
    groups,
    limit,
    (g) => g.endpointCount ?? 0,
    (g) => g.name,
  );
  const samples: Sample[] = [
    sample(METRICS.groups, [['account', account]], groups.length),
    sample(METRICS.groupsOmitted, [['account', account]], groups.length - kept.length),
  ];
  for (const group of kept) {
    const labels = [
      ['account', account],
      ['url_group', group.name],
    ] as const;
    // A figure is absent when Upstash sent it of the wrong type (or not at all, for the times).
    if (group.endpointCount !== undefined)
      samples.push(sample(METRICS.endpoints, labels, group.endpointCount));
    if (group.createdAt !== undefined) samples.push(sample(METRICS.created, labels, group.createdAt));
    if (group.updatedAt !== undefined) samples.push(sample(METRICS.updated, labels, group.updatedAt));
  }
  return samples;
}

/** QStash URL groups ("topics"): endpoints and times of every group, once per account. */
export const urlGroups: SourceKind<'url_groups'> = {
  name: 'url_groups',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, limits, signal, deadline }) {
    const { entries, rejected } = await fetchUrlGroups(client, { ...account, signal, deadline });
    return { samples: urlGroupSamples(account.name, entries, limits.maxUrlGroups), rejectedFields: rejected };
  },
};
