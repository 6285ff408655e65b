import { z } from 'zod';
import type { UpstashClient } from './client.js';
import { scanPages, type Page, type PageVerdict, type PagedList, type PagerTarget } from './pager.js';
import { number, optional } from './tolerance.js';

/**
 * What the exporter reads of a dead-letter message: where it was going (queue, URL group), how its
 * last delivery ended and when it was created. Nothing else of it is kept.
 */
export interface DlqMessage {
  readonly queueName?: string | undefined;
  readonly topicName?: string | undefined;
  readonly responseStatus?: number | undefined;
  /** Unix milliseconds. */
  readonly createdAt?: number | undefined;
  /** Workflow DLQ only: what became of the run's failure callback (`CALLBACK_FAIL`, …), as spelled. */
  readonly failureFunctionState?: string | undefined;
}

/** Messages Upstash returns per page at most, and what every request asks for. */
export const DLQ_PAGE_SIZE = 100;

// A message carries its destination URL, body, headers, response body, labels and the caller's IP:
// any of them may hold a customer's secret. The schemas name only the fields read; zod drops
// every other key at parsing, so the rest never reaches an object of ours, a log line or an error
// (whose messages quote no value). They follow the one tolerance rule of listings: missing is
// absent, a wrong type is absent and rejected alone. An empty name counts as none.
const name = optional(z.string().transform((text) => (text === '' ? undefined : text)));
const MESSAGE_FIELDS = {
  queueName: name,
  topicName: name,
  responseStatus: optional(number.int()),
  createdAt: optional(number),
};

const dlqMessage = z.object(MESSAGE_FIELDS);
const workflowDlqMessage = z.object({
  responseStatus: MESSAGE_FIELDS.responseStatus,
  createdAt: MESSAGE_FIELDS.createdAt,
  failureFunctionState: name,
});

/** How both DLQs page: `messages`, {@link DLQ_PAGE_SIZE} a page. */
const DLQ_PAGES = { listFields: ['messages'], count: DLQ_PAGE_SIZE } as const;

/** The two dead-letter queues: QStash's messages, and Upstash Workflow's failed runs. */
export const DLQ_LISTS = {
  // A message's queue, URL group, status and creation time (docs/metrics.md, QStash dead-letter queues).
  dlq: { ...DLQ_PAGES, path: '/v2/dlq', entry: dlqMessage, toEntry: (m): DlqMessage => m },
  // A failed workflow run: no queue or URL group, but its failure callback's state (docs/metrics.md,
  // QStash dead-letter queues).
  workflow_dlq: {
    ...DLQ_PAGES,
    path: '/v2/workflows/dlq',
    entry: workflowDlqMessage,
    toEntry: (m): DlqMessage => m,
  },
} satisfies Record<string, PagedList<typeof dlqMessage | typeof workflowDlqMessage, DlqMessage>>;
export type DlqList = keyof typeof DLQ_LISTS;

/**
 * Where to read a DLQ, how many pages at most, and (for tests) the least time it may page for: the
 * pager's target, without query parameters of its own.
 */
export type DlqTarget = Omit<PagerTarget, 'query'>;

/** How a DLQ read ended. */
export interface DlqScan {
  /** Whether the last page was reached (else paging stopped at the page cap). */
  readonly complete: boolean;
  /** Requests made. */
  readonly pages: number;
  /** Message fields skipped alone for their wrong type, on any page (Upstash's names). */
  readonly rejected: readonly string[];
}

/**
 * Reads a dead-letter queue with the one pager (pager.ts: `count=100`, then the `cursor` each page
 * gives, to a page without one or `maxPages` pages), handing each page's messages to `onPage` before
 * the next is asked for, so that no more than one page is held. Any failed page fails the whole read
 * (the caller keeps nothing of it); the pager's bounds hold (entries per page, cursor, time).
 */
export async function fetchDlq(
  client: UpstashClient,
  list: DlqList,
  target: DlqTarget,
  onPage: (messages: readonly DlqMessage[]) => void,
): Promise<DlqScan> {
  const each = (page: Page<DlqMessage>): PageVerdict => {
    onPage(page.entries);
    return 'more';
  };
  // One call per list: their schemas differ, so neither types the other's.
  const { pages, end, rejected } =
    list === 'dlq'
      ? await scanPages(client, DLQ_LISTS.dlq, target, each)
      : await scanPages(client, DLQ_LISTS.workflow_dlq, target, each);
  return { complete: end === 'last_page', pages, rejected };
}
