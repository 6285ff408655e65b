import { vi } from 'vitest';
import { DEFAULTS } from '../../src/config/types.js';
import { EventStore, type EntryEvents } from '../../src/sources/event-store.js';
import type { SourceKind, SourceResult } from '../../src/sources/source.js';
import { UpstashClient } from '../../src/upstash/client.js';
import type { Limits } from '../../src/vocabulary.js';
import { FakeUpstash, UPSTREAM } from './event-upstream.js';

// One QStash account whose event sources (docs/metrics.md, Event counters) are polled as the poll
// worker polls them, in-process: the real sources and event store, a real client whose network edge
// is the fake Upstash of event-upstream.ts, and the fake clock (Date only: the client's timers stay
// real). A poll's result is published or not; a worker death goes back to the last publication, as a
// restarted poll worker continues from the event state its predecessor published.

/** When the account's sources start (2026-11-29T00:00:00Z). */
export const START = Date.UTC(2026, 10, 29);
/** The settle window the account runs with (the default). */
export const SETTLE_MS = DEFAULTS.limits.eventSettle;
const KEY = 'eu';

/** A series of a poll's samples: the family's name (with a histogram's suffix) and labels but `account`. */
export type SeriesKey = string;

/** The samples of a poll by series, `name{label="value",…}` without `account`. */
export function seriesOf(result: SourceResult): Map<SeriesKey, number> {
  const out = new Map<SeriesKey, number>();
  for (const s of result.samples) {
    const labels = s.labels
      .filter(([name]) => name !== 'account')
      .map(([name, value]) => `${name}="${value}"`)
      .join(',');
    out.set(`${s.metric.name}${s.suffix ?? ''}{${labels}}`, s.value);
  }
  return out;
}

/** The value of label `name` in a series key, or undefined. */
export function labelOf(key: SeriesKey, name: string): string | undefined {
  return new RegExp(`[{,]${name}="([^"]*)"`).exec(key)?.[1];
}

/** What a poll did: its result or its failure, and whether the fake upstream failed it on purpose. */
export type Polled =
  | {
      readonly ok: true;
      readonly source: string;
      readonly result: SourceResult;
      readonly series: Map<SeriesKey, number>;
    }
  | { readonly ok: false; readonly error: unknown; readonly injected: boolean };

/** The account: its upstream, its clock, its event state and what the serving thread last got. */
export class EventAccount {
  readonly upstream = new FakeUpstash();
  clock = START;
  limits: Limits;
  #store: EventStore;
  #published: ReadonlyMap<string, EntryEvents>;
  readonly #client: UpstashClient;
  readonly #sources: readonly SourceKind[];

  constructor(sources: readonly SourceKind[], limits: Partial<Limits> = {}) {
    vi.setSystemTime(START);
    this.#sources = sources;
    this.limits = { ...DEFAULTS.limits, ...limits };
    this.#client = new UpstashClient({
      timeoutMs: 5000,
      retries: 0,
      concurrency: 1,
      userAgent: 'test',
      random: () => 0,
      dispatcher: this.upstream.agent,
    });
    this.#store = new EventStore({ now: () => Date.now() });
    this.#store.retain([{ key: KEY, sources: sources.map((s) => s.name) }]);
    this.#published = structuredClone(this.#store.snapshot());
  }

  /** Moves the clock on. */
  advance(ms: number): void {
    this.clock += ms;
    vi.setSystemTime(this.clock);
  }

  /** Polls `source` once; request `failAt` of the poll (0-based) answered 503 when given. */
  async poll(source: SourceKind, failAt?: number): Promise<Polled> {
    this.upstream.beginPoll(failAt);
    try {
      const result = await source.poll({
        client: this.#client,
        account: {
          name: KEY,
          baseUrl: UPSTREAM,
          credentials: { api: 'qstash', token: { reveal: () => 'token' } },
          workflowLookbackMs: DEFAULTS.workflowLookback.defaultMs,
        },
        unit: '',
        limits: this.limits,
        signal: new AbortController().signal,
        deadline: this.clock + 60_000,
        events: this.#store.of(KEY, source.name),
      });
      return { ok: true, source: source.name, result, series: seriesOf(result) };
    } catch (error) {
      return { ok: false, error, injected: failAt !== undefined && this.upstream.failedOnPurpose };
    }
  }

  /** The serving thread gets the worker's event state (with the result of its last poll). */
  publish(): void {
    this.#published = structuredClone(this.#store.snapshot());
  }

  /** The poll worker dies: the next one continues from the last publication. */
  die(): void {
    this.#store = new EventStore({ now: () => Date.now(), from: structuredClone(this.#published) });
  }

  /** A reload that keeps the entry and its sources, with new limits. */
  reload(limits: Partial<Limits>): void {
    this.limits = { ...this.limits, ...limits };
    this.#store.retain([{ key: KEY, sources: this.#sources.map((s) => s.name) }]);
  }

  async close(): Promise<void> {
    await this.#client.close();
    await this.upstream.close();
  }
}
