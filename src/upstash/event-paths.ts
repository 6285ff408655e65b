import type { z } from 'zod';
import type { UpstashClient } from './client.js';
import { HttpStatusError } from './errors.js';
import {
  scanPages,
  type Page,
  type PagedList,
  type PagerTarget,
  type PageVerdict,
  type PagingEnd,
} from './pager.js';

/**
 * An event list at its two paths: the one Upstash documents, and the one its own SDKs call (same
 * parameters, same body), used for an entry once the documented one answered 404 (docs/metrics.md,
 * Delivery errors and workflow runs).
 */
export interface EventList<S extends z.ZodType<object>, T> {
  readonly documented: PagedList<S, T>;
  readonly sdk: PagedList<S, T>;
}

/** How an event read ended, and whether it read the SDK's path. */
export interface EventPaging extends PagingEnd {
  /** true: the SDK's path was read (given, or after a 404 from the documented one on this read). */
  readonly sdk: boolean;
}

/**
 * Reads an event list with the one pager, on the documented path unless `sdk`. A 404 on the
 * documented path's first page (before any page was handed over) reads the SDK's path instead, in
 * the same poll; the result says so, and the caller uses it from then on. Both requests are counted
 * by the client as any other.
 */
export async function scanEvents<S extends z.ZodType<object>, T>(
  client: UpstashClient,
  list: EventList<S, T>,
  sdk: boolean,
  target: PagerTarget,
  onPage: (page: Page<T>) => PageVerdict,
): Promise<EventPaging> {
  if (sdk) return { ...(await scanPages(client, list.sdk, target, onPage)), sdk: true };
  const progress = { handed: false };
  try {
    const end = await scanPages(client, list.documented, target, (page) => {
      progress.handed = true;
      return onPage(page);
    });
    return { ...end, sdk: false };
  } catch (error) {
    if (progress.handed || !(error instanceof HttpStatusError) || error.status !== 404) throw error;
  }
  return { ...(await scanPages(client, list.sdk, target, onPage)), sdk: true };
}
