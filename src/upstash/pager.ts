import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { requestName, UpstashError } from './errors.js';
import { describeIssues, parseListing, responseFailure, type EntryReader } from './schema.js';
import type { Tolerated } from './tolerance.js';

// The one pager of every paged source (docs/metrics.md, QStash dead-letter queues; the event sources): one
// request per page, `count` asked for, the next page by the `cursor` the page before gave back. Each
// rule that keeps a page from breaking the exporter lives here once: a page holds at most the entries
// asked for, a cursor is short and never repeats, the reading stops at a page cap and a time, and a
// consumer holds one page at a time.

/**
 * The longest cursor followed, in UTF-8 bytes. Upstash's cursors are a few dozen characters; a
 * longer one would go whole into the next URL (a 200 KB request line that any server refuses, and a
 * huge error message), so it is `invalid_response`.
 */
export const MAX_CURSOR_BYTES = 4096;

/**
 * The least time a read may page for, whatever its deadline: a start-up poll's deadline is the next
 * tick of its schedule, which may be a moment away, and must not fail a list that takes three pages.
 */
export const MIN_PAGING_MS = 60_000;

/** A paged list of Upstash: where it is, how its pages are shaped, what is kept of an entry. */
export interface PagedList<S extends z.ZodType<object>, T> {
  /** The path under the target's base URL, e.g. `/v2/dlq`. */
  readonly path: string;
  /**
   * The body field(s) that may hold the page's entries, the first present one read (the QStash logs
   * come as `logs` or `events`); missing or null, the page is empty.
   */
  readonly listFields: readonly [string, ...string[]];
  /** Entries asked for per page (`count=`): a page with more is `invalid_response`. */
  readonly count: number;
  /**
   * false: `count` is not sent, and is upstream's documented page size instead (the workflow runs'
   * 10 in run mode). Sent by default.
   */
  readonly sendCount?: boolean | undefined;
  /** Query parameters every read of this list sends (`groupBy`, `trimBody`), after `count`. */
  readonly query?: Readonly<Record<string, string | number>> | undefined;
  /**
   * One entry's schema: only the fields read are named, so zod drops every other key (secrets,
   * bodies, personal data) at parsing; optional fields follow the tolerance rule (tolerance.ts).
   */
  readonly entry: S;
  /** The entry as the consumer keeps it, its rejected optional fields absent. */
  readonly toEntry: (entry: Tolerated<z.output<S>>) => T;
  /** The same entry read by hand, for the event pages (schema.ts, {@link EntryReader}). */
  readonly read?: EntryReader<T> | undefined;
}

/** Where and how far to read a paged list. */
export type PagerTarget = Target & {
  /** Pages read at most (`limits.max_dlq_pages`, `limits.max_event_pages`). */
  readonly maxPages: number;
  /** Query parameters of this read (`state`, `fromDate`), after the list's own. */
  readonly query?: Readonly<Record<string, string | number>> | undefined;
  /** The least time the read may page for ({@link MIN_PAGING_MS}; tests give less). */
  readonly minPagingMs?: number | undefined;
};

/** One page as parsed and checked, handed to the consumer before the next is asked for. */
export interface Page<T> {
  readonly entries: T[];
  /** Entry fields skipped alone for their wrong type (Upstash's names). */
  readonly rejected: readonly string[];
  /** 1 for the first page. */
  readonly number: number;
  /** Whether this page is the end of the list (no cursor after it). */
  readonly last: boolean;
}

/** How a {@link scanPages} ended. */
export interface PagingEnd {
  /** Requests made (pages read). */
  readonly pages: number;
  /**
   * `last_page`: the list was read to its end; `page_cap`: `maxPages` pages were read and a cursor
   * still came back; `stopped`: the consumer asked for no more.
   */
  readonly end: 'last_page' | 'page_cap' | 'stopped';
  /** Entry fields rejected on any page (Upstash's names). */
  readonly rejected: readonly string[];
}

/** What a consumer of {@link scanPages} says after each page. */
export type PageVerdict = 'more' | 'stop';

/**
 * Reads `list` page by page, yielding each page once it is parsed and checked; the next request is
 * made only when the consumer asks for the next page, so a consumer holds one page at a time and may
 * stop early (a `break` makes no further request). Paging ends at a page without a cursor (absent,
 * null or empty) or after `maxPages` pages. Any of these fails the read as `invalid_response`, before
 * the page is yielded: a body that is not an object, a list or cursor of the wrong type, a page with
 * more entries than `count`, a cursor longer than {@link MAX_CURSOR_BYTES}, a cursor seen before (a
 * loop). A failed request fails it with the request's reason, and no page after the first starts
 * past the target's deadline, or {@link MIN_PAGING_MS} after the start when that is later
 * (`timeout`): the read is bounded in requests, bytes and time.
 */
export async function* readPages<S extends z.ZodType<object>, T>(
  client: UpstashClient,
  list: PagedList<S, T>,
  target: PagerTarget,
): AsyncGenerator<Page<T>, void, undefined> {
  const { maxPages, query, minPagingMs, baseUrl, ...request } = target;
  const started = Date.now();
  const stopAt =
    request.deadline === undefined
      ? undefined
      : Math.max(request.deadline, started + (minPagingMs ?? MIN_PAGING_MS));
  const first = firstUrl(baseUrl, list, query);
  const then = first.includes('?') ? '&' : '?';
  const body = pageBody(list.listFields);
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let number = 1; number <= maxPages; number++) {
    if (number > 1 && stopAt !== undefined && Date.now() >= stopAt)
      throw new UpstashError(
        'timeout',
        `Paging stopped at the poll's deadline after ${number - 1} pages: ${requestName('GET', `${baseUrl}${list.path}`)}`,
      );
    const url = cursor === undefined ? first : `${first}${then}cursor=${encodeURIComponent(cursor)}`;
    const page = await parsePage(await client.getJson({ ...request, url }), url, list, body, number);
    const next = page.cursor;
    if (next !== undefined) {
      if (seen.has(next)) throw responseFailure(url)(`page ${number} repeats the cursor of an earlier page`);
      seen.add(next);
    }
    yield { entries: page.entries, rejected: page.rejected, number, last: next === undefined };
    if (next === undefined) return;
    cursor = next;
  }
}

/**
 * {@link readPages} with a consumer called on each page (awaited before the next request), which
 * may answer `stop`; says how paging ended and the fields rejected on any page.
 */
export async function scanPages<S extends z.ZodType<object>, T>(
  client: UpstashClient,
  list: PagedList<S, T>,
  target: PagerTarget,
  onPage: (page: Page<T>) => PageVerdict | Promise<PageVerdict>,
): Promise<PagingEnd> {
  const rejected = new Set<string>();
  let pages = 0;
  for await (const page of readPages(client, list, target)) {
    pages = page.number;
    for (const field of page.rejected) rejected.add(field);
    const verdict = await onPage(page);
    if (page.last) return { pages, end: 'last_page', rejected: [...rejected] };
    if (verdict === 'stop') return { pages, end: 'stopped', rejected: [...rejected] };
  }
  return { pages, end: 'page_cap', rejected: [...rejected] };
}

/** The first page's URL: the path, `count`, then the list's and the read's query parameters. */
function firstUrl<S extends z.ZodType<object>, T>(
  baseUrl: string,
  list: PagedList<S, T>,
  query: PagerTarget['query'],
): string {
  const params = new URLSearchParams();
  if (list.sendCount !== false) params.set('count', String(list.count));
  for (const [key, value] of Object.entries({ ...list.query, ...query })) params.set(key, String(value));
  return params.size === 0 ? `${baseUrl}${list.path}` : `${baseUrl}${list.path}?${params.toString()}`;
}

/**
 * A page's frame: the cursor and the list field(s), a null of either read as missing (the tolerance
 * rule of every optional field); the entries are checked one by one afterwards.
 */
function pageBody(listFields: readonly string[]) {
  return z.object({
    cursor: z.string().nullish(),
    ...Object.fromEntries(listFields.map((field) => [field, z.array(z.unknown()).nullish()])),
  });
}

/** One page as parsed: its entries, rejected fields and the next cursor (undefined on the last). */
async function parsePage<S extends z.ZodType<object>, T>(
  json: unknown,
  url: string,
  list: PagedList<S, T>,
  body: ReturnType<typeof pageBody>,
  number: number,
): Promise<{ entries: T[]; rejected: readonly string[]; cursor: string | undefined }> {
  const fail = responseFailure(url);
  const parsed = body.safeParse(json);
  if (!parsed.success) throw fail(describeIssues(parsed.error));
  const frame = parsed.data as { cursor?: string | null } & Record<string, unknown[] | null | undefined>;
  // The first list field that holds a list; with none, the page is empty.
  const found = list.listFields
    .map((field) => ({ field, list: frame[field] }))
    .find((held): held is { field: string; list: unknown[] } => Array.isArray(held.list));
  const entries = found?.list ?? [];
  // Checked before any entry is parsed: a page of thousands costs one comparison, not their parsing.
  if (entries.length > list.count)
    throw fail(`page ${number} holds ${entries.length} entries, more than the ${list.count} asked for`);
  const cursor = frame.cursor ?? '';
  if (Buffer.byteLength(cursor) > MAX_CURSOR_BYTES)
    throw fail(`page ${number} gives a cursor longer than ${MAX_CURSOR_BYTES} bytes`);
  const listing = await parseListing(entries, url, {
    entry: list.entry,
    toEntry: list.toEntry,
    read: list.read,
    list: () => ({ list: entries, at: found?.field ?? list.listFields[0] }),
  });
  return { entries: listing.entries, rejected: listing.rejected, cursor: cursor === '' ? undefined : cursor };
}
