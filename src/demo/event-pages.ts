import { jsonAnswer, type Answer } from './answer.js';

// How Upstash pages its event lists (QStash's logs, Workflow's runs): newest first by one time, at
// most `count` a page, the next page by an opaque cursor. The simulator's cursor is the time and
// rank of the first item of the next page, so a page stays stable while new items arrive on top.

/** An item of an event list and the time it is ordered by (newest first). */
export interface Timed {
  readonly at: number;
  readonly body: Record<string, unknown>;
}

/** One page of `items` (already filtered) for the request's `count` and `cursor`, under `listField`. */
export function eventPage(
  items: readonly Timed[],
  query: URLSearchParams | undefined,
  listField: string,
  maxCount: number,
): Answer {
  const asked = Number(query?.get('count') ?? maxCount);
  const count = Number.isInteger(asked) && asked > 0 ? Math.min(asked, maxCount) : maxCount;
  const sorted = [...items].sort((a, b) => b.at - a.at);
  const cursor = query?.get('cursor') ?? undefined;
  let start = 0;
  if (cursor !== undefined) {
    const match = /^(\d+)\.(\d+)$/.exec(cursor);
    if (match === null) return jsonAnswer(400, { error: 'invalid cursor' });
    const at = Number(match[1]);
    const rank = Number(match[2]);
    start = sorted.findIndex((item) => item.at <= at);
    if (start === -1) start = sorted.length;
    else if (sorted[start]?.at === at) start += rank;
  }
  const page = sorted.slice(start, start + count);
  const next = sorted[start + count];
  let nextCursor: string | undefined;
  if (next !== undefined) {
    const first = sorted.findIndex((item) => item.at === next.at);
    nextCursor = `${next.at}.${start + count - first}`;
  }
  return jsonAnswer(200, {
    ...(nextCursor !== undefined && { cursor: nextCursor }),
    [listField]: page.map((item) => item.body),
  });
}

/**
 * When a simulated event list shows an event: `visible` once its time has passed (as Upstash does);
 * `as-given` whatever its date (the fault of an upstream that dates events in another unit, in the
 * future: microseconds for milliseconds); `late`: every `every`-th event of the list (oldest first, the
 * first included) shows only `ms` after the time the list is ordered by (a log event's time, a run's
 * creation), the others at once (the fault of an eventually consistent log: an event visible after
 * newer ones).
 */
export type EventDating =
  'visible' | 'as-given' | { readonly late: { readonly ms: number; readonly every: number } };

/** The events of `items` that `dating` shows at `now` (a `late` dating hides the late ones until due). */
export function shown(items: readonly Timed[], dating: EventDating, now: number): Timed[] {
  if (typeof dating === 'string') return [...items];
  const { ms, every } = dating.late;
  return [...items]
    .sort((a, b) => a.at - b.at)
    .filter((item, at) => at % Math.max(1, every) !== 0 || item.at + ms <= now);
}

/** A unit a time can be written in besides milliseconds. */
export type TimeUnit = 's' | 'us' | 'ns';

/**
 * Unix ms `ms` written in `unit`: the fault of an upstream that dates an event in another unit, while
 * it orders and filters the event by its true time (seconds floored).
 */
export function inUnit(ms: number, unit: TimeUnit): number {
  if (unit === 's') return Math.floor(ms / 1000);
  return unit === 'us' ? ms * 1000 : ms * 1_000_000;
}

/** Whether a `fromDate` or `toDate` was sent that is no whole number: Upstash types them int64 (400). */
export function badTimeParam(query: URLSearchParams | undefined): boolean {
  for (const name of ['fromDate', 'toDate']) {
    const text = query?.get(name);
    if (text !== undefined && text !== null && !/^\d+$/.test(text)) return true;
  }
  return false;
}

/** A Unix ms query parameter, or undefined when absent or not a whole number. */
export function timeParam(query: URLSearchParams | undefined, name: string): number | undefined {
  const text = query?.get(name);
  if (text === undefined || text === null || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}
