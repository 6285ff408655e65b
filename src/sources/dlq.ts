import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { labelKey } from '../metrics/label-limit.js';
import { keepLargest, sample, type Sample } from '../metrics/sample.js';
import { fetchDlq, type DlqList, type DlqMessage } from '../upstash/dlq.js';
import type { Limits } from '../vocabulary.js';
import { counted, polled, type SourceKind } from './source.js';

/** Response status codes exported per account at most; above it the most frequent are kept. */
export const MAX_RESPONSE_STATUSES = 100;

/** Failure callback states exported per account at most; above it the most frequent are kept. */
export const MAX_CALLBACK_STATES = 20;

/**
 * The failure callback states Upstash documents (`failureFunctionState`), always exported, 0 when no
 * message has it: a callback that starts failing is a rise from 0, not a new series.
 */
export const CALLBACK_STATES = [
  'CALLBACK_INPROGRESS',
  'CALLBACK_SUCCESS',
  'CALLBACK_FAIL',
  'CALLBACK_CANCELED',
] as const;

/** How the messages of a DLQ are grouped: by which field, under which label, capped by what. */
interface Grouping {
  readonly metric: DataMetric;
  readonly label: string;
  readonly key: (message: DlqMessage) => string | undefined;
  readonly limit: (limits: Limits) => number;
  /** Values exported at 0 when no message has them. */
  readonly always?: readonly string[];
}

/** The families of one DLQ, named `upstash_qstash_<prefix>_…` (its source's name). */
function dlqMetrics(prefix: DlqList, what: string) {
  const when = polled(prefix);
  return {
    scanned: gauge(
      `upstash_qstash_${prefix}_scanned_messages`,
      `${what} read by the last poll, at most max_dlq_pages pages of 100 (count). ${when}`,
    ),
    complete: gauge(
      `upstash_qstash_${prefix}_scan_complete`,
      `Whether the last poll read the ${what.toLowerCase()} to the end (1), or stopped at max_dlq_pages (0). ${when}`,
    ),
    oldest: gauge(
      `upstash_qstash_${prefix}_oldest_message_timestamp_seconds`,
      `When the oldest of the ${what.toLowerCase()} read was created; absent when there is none (Unix time in seconds). ${when}`,
      1000,
    ),
  };
}

/** The messages of one DLQ by the HTTP status of their last delivery attempt. */
function byStatus(prefix: DlqList, what: string): Grouping {
  return {
    metric: gauge(
      `upstash_qstash_${prefix}_messages_by_response_status`,
      `${what} read, by the HTTP status of their last delivery attempt; the ${MAX_RESPONSE_STATUSES} most frequent codes kept, the others counted in upstash_exporter_label_values_truncated_total (count). ${polled(prefix)}`,
    ),
    label: 'code',
    key: (m) => (m.responseStatus === undefined ? undefined : String(m.responseStatus)),
    limit: () => MAX_RESPONSE_STATUSES,
  };
}

const DLQ = dlqMetrics('dlq', 'Dead-letter messages');
const POLLED = polled('dlq');
const BY_QUEUE = gauge(
  'upstash_qstash_dlq_messages_by_queue',
  `Dead-letter messages read, by queue; the max_queues largest kept, the others counted in upstash_exporter_label_values_truncated_total (count). ${POLLED}`,
);
const BY_URL_GROUP = gauge(
  'upstash_qstash_dlq_messages_by_url_group',
  `Dead-letter messages read, by URL group; the max_url_groups largest kept, the others counted in upstash_exporter_label_values_truncated_total (count). ${POLLED}`,
);
const WORKFLOW_DLQ = dlqMetrics('workflow_dlq', 'Failed workflow runs');
const BY_CALLBACK_STATE = gauge(
  'upstash_workflow_dlq_failure_callbacks',
  `Failed workflow runs read in the Workflow DLQ, by what became of their failure callback (failureFunctionState as Upstash spells it: CALLBACK_INPROGRESS, CALLBACK_SUCCESS, CALLBACK_FAIL, CALLBACK_CANCELED; none when the run has none); the ${MAX_CALLBACK_STATES} most frequent kept (count). ${polled('workflow_dlq')}`,
);

/** The groupings of each DLQ: workflow runs have no queue or URL group. */
const GROUPINGS: Record<DlqList, readonly Grouping[]> = {
  dlq: [
    { metric: BY_QUEUE, label: 'queue', key: (m) => m.queueName, limit: (l) => l.maxQueues },
    { metric: BY_URL_GROUP, label: 'url_group', key: (m) => m.topicName, limit: (l) => l.maxUrlGroups },
    byStatus('dlq', 'Dead-letter messages'),
  ],
  workflow_dlq: [
    byStatus('workflow_dlq', 'Failed workflow runs'),
    {
      metric: BY_CALLBACK_STATE,
      label: 'state',
      key: (m) => m.failureFunctionState ?? 'none',
      limit: () => MAX_CALLBACK_STATES,
      always: CALLBACK_STATES,
    },
  ],
};

const FAMILIES: Record<DlqList, ReturnType<typeof dlqMetrics>> = { dlq: DLQ, workflow_dlq: WORKFLOW_DLQ };

/**
 * What a DLQ poll keeps while it pages: the messages counted, the oldest creation time and the
 * counts per group, each page's messages added and then let go, so a poll holds one page at a time.
 * A group's name is kept as its {@link labelKey}: ten pages of 80,000-character queue names cost
 * their labels' length, not theirs, until the scan ends.
 */
export class DlqTally {
  readonly #list: DlqList;
  #scanned = 0;
  #oldest: number | undefined;
  readonly #groups: readonly { readonly grouping: Grouping; readonly counts: Map<string, number> }[];

  constructor(list: DlqList) {
    this.#list = list;
    this.#groups = GROUPINGS[list].map((grouping) => ({
      grouping,
      counts: new Map<string, number>((grouping.always ?? []).map((value) => [labelKey(value), 0])),
    }));
  }

  /** The messages counted so far. */
  get scanned(): number {
    return this.#scanned;
  }

  /** The messages counted so far whose failure callback failed (Workflow DLQ; 0 for the other). */
  get callbacksFailed(): number {
    const group = this.#groups.find(({ grouping }) => grouping.metric === BY_CALLBACK_STATE);
    return group?.counts.get(labelKey('CALLBACK_FAIL')) ?? 0;
  }

  /** Counts one page's messages. */
  add(messages: readonly DlqMessage[]): void {
    this.#scanned += messages.length;
    for (const { createdAt } of messages)
      if (createdAt !== undefined && (this.#oldest === undefined || createdAt < this.#oldest))
        this.#oldest = createdAt;
    for (const { grouping, counts } of this.#groups)
      for (const message of messages) {
        const value = grouping.key(message);
        if (value === undefined) continue;
        const key = labelKey(value);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
  }

  /**
   * The samples of the scan (its size, completeness, oldest message and the grouped counts), and
   * how many group values the caps left out.
   */
  samples(account: string, complete: boolean, limits: Limits): { samples: Sample[]; dropped: number } {
    const metrics = FAMILIES[this.#list];
    const accountLabel = ['account', account] as const;
    const samples: Sample[] = [
      sample(metrics.scanned, [accountLabel], this.#scanned),
      sample(metrics.complete, [accountLabel], complete ? 1 : 0),
    ];
    if (this.#oldest !== undefined) samples.push(sample(metrics.oldest, [accountLabel], this.#oldest));
    let dropped = 0;
    for (const { grouping, counts } of this.#groups) {
      const kept = keepLargest(
        [...counts],
        grouping.limit(limits),
        ([, count]) => count,
        ([key]) => key,
      );
      dropped += counts.size - kept.length;
      for (const [key, count] of kept)
        samples.push(sample(grouping.metric, [accountLabel, [grouping.label, key]], count));
    }
    return { samples, dropped };
  }
}

/** What both DLQ sources do: page through `list` on the entry's `dlq_interval`. */
function dlqPolling(list: DlqList): Pick<SourceKind<DlqList>, 'per' | 'metrics' | 'poll'> {
  return {
    per: 'account',
    metrics: [...Object.values(FAMILIES[list]), ...GROUPINGS[list].map((g) => g.metric)],
    async poll({ client, account, limits, signal, deadline }) {
      const tally = new DlqTally(list);
      const scan = await fetchDlq(
        client,
        list,
        { ...account, maxPages: limits.maxDlqPages, signal, deadline },
        (messages) => tally.add(messages),
      );
      const { samples, dropped } = tally.samples(account.name, scan.complete, limits);
      const what = list === 'dlq' ? 'dead-letter messages' : 'failed workflow runs';
      // The last line of defence failed: nothing else says so (docs/metrics.md, QStash dead-letter queues).
      const failed = tally.callbacksFailed;
      const callbackWarning =
        failed > 0
          ? [`${counted(failed, 'failed workflow run')} whose failure callback failed (CALLBACK_FAIL)`]
          : [];
      return {
        samples,
        rejectedFields: scan.rejected,
        ...(dropped > 0 && { labelValuesDropped: dropped }),
        // A scan cut short counts at most its pages' messages: a rise past them cannot be told.
        ...(scan.complete
          ? { watched: { [what]: tally.scanned }, ...(failed > 0 && { warnings: callbackWarning }) }
          : {
              warnings: [
                ...callbackWarning,
                `scan stopped at max_dlq_pages (${limits.maxDlqPages} pages, ${tally.scanned} ${what} read): the counts are lower bounds`,
              ],
            }),
      };
    },
  };
}

/** QStash's dead-letter queue, read page by page: what failed, where it was going, since when. */
export const dlq: SourceKind<'dlq'> = { name: 'dlq', ...dlqPolling('dlq') };
/** Upstash Workflow's dead-letter queue (failed runs), read the same way. */
export const workflowDlq: SourceKind<'workflow_dlq'> = {
  name: 'workflow_dlq',
  ...dlqPolling('workflow_dlq'),
};
