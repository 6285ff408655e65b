import { MockAgent } from 'undici';

// Upstash's event lists as the event sources page them (docs/metrics.md, Event counters), answered
// in-process through undici's MockAgent (the network edge) so that a property can poll the real
// sources hundreds of times: the QStash log (`/v2/logs`, newest first by the time upstream files an
// event under, `fromDate` on that time) and the workflow runs (`/v2/workflows/logs`, newest first by
// creation, `fromDate` on creation). Pages hold `pageSize` entries with offset cursors, so an arrival
// during a poll repeats the tail of a page; an event may be listed twice (a duplicate across pages);
// one request of a poll may be answered 503. What each poll was served is recorded per state.

/** Where the fake Upstash answers. */
export const UPSTREAM = 'https://upstash.test';

/** One event as upstream holds it. */
export interface UpstreamEvent {
  readonly id: string;
  /** `state` of a log event, `workflowState` of a run: the listing it is in. */
  readonly state: string;
  /** The time upstream files it under (ms): what `fromDate` filters on and pages are ordered by. */
  at: number;
  /** The entry as listed, its time field in whatever unit and shape the generator chose. */
  body: Record<string, unknown>;
  /** Listed this many times (2: a duplicate across pages). */
  copies: number;
  visible: boolean;
}

/** What one poll was served of one listing (a `state`). */
export interface Served {
  readonly ids: Set<string>;
  pages: number;
  /** Whether the last page served gave a cursor (more was there to read). */
  more: boolean;
}

/** The fake Upstash of one account: its events, and how it pages them. */
export class FakeUpstash {
  readonly agent = new MockAgent();
  readonly events: UpstreamEvent[] = [];
  /** Entries a page holds (at most the count the list asks for). */
  pageSize = 2;
  /** The request (0-based, counted since {@link beginPoll}) answered 503, if any. */
  failAt: number | undefined;
  /** Events made visible after the first page a poll is served (they arrive while it pages). */
  arriving: UpstreamEvent[] = [];
  served = new Map<string, Served>();
  /** Whether this poll was answered the 503 of {@link failAt}. */
  failedOnPurpose = false;
  #requests = 0;

  constructor() {
    this.agent.disableNetConnect();
    this.agent
      .get(UPSTREAM)
      .intercept({ path: () => true, method: 'GET' })
      .reply(({ path }) => this.#answer(path))
      .persist();
  }

  /** Starts counting requests and recording what is served, for one poll. */
  beginPoll(failAt?: number): void {
    this.#requests = 0;
    this.failAt = failAt;
    this.failedOnPurpose = false;
    this.served = new Map();
  }

  /** Adds an event, visible at once unless said. */
  add(
    event: Omit<UpstreamEvent, 'copies' | 'visible'> & { copies?: number; visible?: boolean },
  ): UpstreamEvent {
    const added = { copies: 1, visible: true, ...event };
    this.events.push(added);
    return added;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  #answer(path: string): {
    statusCode: number;
    data: object | string;
    responseOptions: { headers: Record<string, string> };
  } {
    const headers = { headers: { 'content-type': 'application/json' } };
    const request = this.#requests++;
    if (request === this.failAt) {
      this.failedOnPurpose = true;
      return { statusCode: 503, data: '', responseOptions: headers };
    }
    const url = new URL(path, UPSTREAM);
    const state = url.searchParams.get('state') ?? '';
    const from = Number(url.searchParams.get('fromDate') ?? '0');
    const offset = Number((url.searchParams.get('cursor') ?? 'o0').slice(1));
    const runs = url.pathname.startsWith('/v2/workflows/');
    const listed = this.events
      .filter((e) => e.visible && e.state === state && e.at >= from)
      .flatMap((e) => Array.from({ length: e.copies }, () => e))
      // Newest first; of one instant, the one added last first.
      .sort((a, b) => b.at - a.at || this.events.indexOf(b) - this.events.indexOf(a));
    const size = Math.min(this.pageSize, runs ? 10 : 100);
    const page = listed.slice(offset, offset + size);
    const more = offset + size < listed.length;
    const served = this.served.get(state) ?? { ids: new Set(), pages: 0, more: false };
    for (const e of page) served.ids.add(e.id);
    served.pages++;
    served.more = more;
    this.served.set(state, served);
    if (offset === 0 && this.arriving.length > 0) {
      for (const e of this.arriving) e.visible = true;
      this.arriving = [];
    }
    const entries = page.map((e) => e.body);
    return {
      statusCode: 200,
      data: { ...(more && { cursor: `o${offset + size}` }), [runs ? 'runs' : 'logs']: entries },
      responseOptions: headers,
    };
  }
}

/** How a generated event states its time (a log's `time`, a run's `workflowRunCompletedAt`). */
export const TIME_CLASSES = [
  'ms',
  'fraction',
  'ahead',
  'seconds',
  'micros',
  'nanos',
  'zero',
  'negative',
  'null',
  'text',
  'past',
  'far',
] as const;
export type TimeClass = (typeof TIME_CLASSES)[number];

/** A time the rule must take (docs/metrics.md, Event counters): counted, once. */
export function plausible(kind: TimeClass): boolean {
  return kind === 'ms' || kind === 'fraction' || kind === 'ahead';
}

/**
 * The time field of an event that happened at `ms` as `kind` states it, and where upstream files it
 * (an upstream clock running fast files it ahead; a unit mistake leaves it where it happened).
 * `aheadMs` is how far ahead an `ahead` event is dated (within the 5-minute horizon).
 */
export function timeOf(kind: TimeClass, ms: number, aheadMs: number): { field: unknown; at: number } {
  switch (kind) {
    case 'ms':
      return { field: ms, at: ms };
    case 'fraction':
      return { field: ms + 0.5, at: ms };
    case 'ahead':
      return { field: ms + aheadMs, at: ms + aheadMs };
    case 'seconds':
      return { field: Math.floor(ms / 1000), at: ms };
    case 'micros':
      return { field: ms * 1000, at: ms };
    case 'nanos':
      return { field: ms * 1_000_000, at: ms };
    case 'zero':
      return { field: 0, at: ms };
    case 'negative':
      return { field: -ms, at: ms };
    case 'null':
      return { field: null, at: ms };
    case 'text':
      return { field: 'NaN', at: ms };
    case 'past':
      return { field: Date.UTC(2014, 5, 1), at: ms };
    case 'far':
      return { field: ms + 400 * 86_400_000, at: ms + 400 * 86_400_000 };
  }
}
