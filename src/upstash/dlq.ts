import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { UpstashError } from './errors.js';
import { describeIssues, parseListing, responseFailure } from './schema.js';
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
}

/** Messages Upstash returns per page at most, and what every request asks for. */
export const DLQ_PAGE_SIZE = 100;

// A message carries its destination URL, body, headers, response body, labels and the caller's IP:
// any of them may hold a customer's secret. The schema names only the four fields read; zod drops
// every other key at parsing, so the rest never reaches an object of ours, a log line or an error
// (whose messages quote no value). The four follow the one tolerance rule of listings: missing is
// absent, a wrong type is absent and rejected alone. An empty name counts as none.
const name = optional(z.string().transform((text) => (text === '' ? undefined : text)));
const MESSAGE_FIELDS = {
  queueName: name,
  topicName: name,
  responseStatus: optional(number.int()),
  createdAt: optional(number),
};

/** The two dead-letter queues: QStash's messages, and Upstash Workflow's failed runs. */
export const DLQ_LISTS = {
  // qstash.openapi.yaml, DLQMessage.
  dlq: { path: '/v2/dlq', message: z.object(MESSAGE_FIELDS) },
  // workflow.openapi.yaml, WorkflowDLQMessage: no queue or URL group, so only these two are read.
  workflow_dlq: {
    path: '/v2/workflows/dlq',
    message: z.object({ responseStatus: MESSAGE_FIELDS.responseStatus, createdAt: MESSAGE_FIELDS.createdAt }),
  },
} as const;
export type DlqList = keyof typeof DLQ_LISTS;

// An empty DLQ may come without its list; the cursor is absent or empty on the last page.
const page = z.object({
  cursor: z.string().optional(),
  messages: z.array(z.unknown()).optional(),
});

/** One page of a dead-letter queue as parsed. */
export interface DlqPage {
  readonly messages: DlqMessage[];
  /** The next page's cursor; undefined on the last page. */
  readonly cursor: string | undefined;
  /** Message fields skipped alone for their wrong type (Upstash's names). */
  readonly rejected: readonly string[];
}

/** Parses one page of DLQ `list` (in slices); throws on any other shape, never quoting a value. */
export async function parseDlqPage(json: unknown, url: string, list: DlqList): Promise<DlqPage> {
  const fail = responseFailure(url);
  const parsed = page.safeParse(json);
  if (!parsed.success) throw fail(describeIssues(parsed.error));
  const messages = parsed.data.messages ?? [];
  const { entries, rejected } = await parseListing(messages, url, {
    entry: DLQ_LISTS[list].message,
    toEntry: (message): DlqMessage => message,
    list: () => ({ list: messages, at: 'messages' }),
  });
  const { cursor } = parsed.data;
  return { messages: entries, cursor: cursor === '' ? undefined : cursor, rejected };
}

/** One poll's reading of a dead-letter queue. */
export interface DlqScan {
  readonly messages: readonly DlqMessage[];
  /** Whether the last page was reached (else paging stopped at the page cap). */
  readonly complete: boolean;
  /** Requests made. */
  readonly pages: number;
  /** Message fields skipped alone for their wrong type, on any page (Upstash's names). */
  readonly rejected: readonly string[];
}

/**
 * The least time a read may page for, whatever its deadline: a start-up poll's deadline is the next
 * tick of its schedule, which may be a moment away, and must not fail a DLQ that takes three pages.
 */
export const MIN_PAGING_MS = 60_000;

/** Where to read a DLQ, how many pages at most, and (for tests) the least time it may page for. */
export type DlqTarget = Target & { readonly maxPages: number; readonly minPagingMs?: number };

/**
 * Reads a dead-letter queue page by page (`count=100`, then the `cursor` each page gives) until a
 * page comes without a cursor or `maxPages` pages were read. A cursor seen before would loop:
 * `invalid_response`. Any failed page fails the whole read (no partial result), and no page starts
 * after the target's deadline, or {@link MIN_PAGING_MS} after the start when that is later
 * (`timeout`): the read is bounded in requests and in time.
 */
export async function fetchDlq(client: UpstashClient, list: DlqList, target: DlqTarget): Promise<DlqScan> {
  const { path } = DLQ_LISTS[list];
  const stopAt =
    target.deadline === undefined
      ? undefined
      : Math.max(target.deadline, Date.now() + (target.minPagingMs ?? MIN_PAGING_MS));
  const base = `${target.baseUrl}${path}?count=${DLQ_PAGE_SIZE}`;
  const seen = new Set<string>();
  const messages: DlqMessage[] = [];
  const rejected = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < target.maxPages; pages++) {
    const url = cursor === undefined ? base : `${base}&cursor=${encodeURIComponent(cursor)}`;
    if (pages > 0 && stopAt !== undefined && Date.now() >= stopAt)
      throw new UpstashError(
        'timeout',
        `Paging stopped at the poll's deadline after ${pages} pages: GET ${target.baseUrl}${path}`,
      );
    const read = await parseDlqPage(await client.getJson({ ...target, url }), url, list);
    for (const message of read.messages) messages.push(message);
    for (const field of read.rejected) rejected.add(field);
    const next = read.cursor;
    if (next === undefined) return { messages, complete: true, pages: pages + 1, rejected: [...rejected] };
    if (seen.has(next)) throw responseFailure(url)(`page ${pages + 1} repeats the cursor of an earlier page`);
    seen.add(next);
    cursor = next;
  }
  return { messages, complete: false, pages: target.maxPages, rejected: [...rejected] };
}
