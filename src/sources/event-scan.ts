import type { z } from 'zod';
import type { Sample } from '../metrics/sample.js';
import { scanEvents, type EventList } from '../upstash/event-paths.js';
import type { PagerTarget } from '../upstash/pager.js';
import type { SourceName } from '../vocabulary.js';
import {
  EventScan,
  startState,
  type CountedEvent,
  type EventSeries,
  type KeyBudget,
  type ScanResult,
} from './event-rule.js';
import { scanSamples, type ScanMetrics } from './event-samples.js';
import { ScanWarnings } from './event-warnings.js';
import type { PollRequest, SourceResult } from './source.js';

// The one loop of the event sources (docs/metrics.md, Event counters): for each (source, state),
// the scan built from the entry's stored state (or the source's start), the pages read from W −
// settle on and counted by the event rule, the next state stored, and what the poll says of it.

/**
 * How one (source, state) reads its events from `from` (the rule's unit): each page's entries are
 * handed to `read`, which answers false once nothing after can count. Resolves to whether the read
 * reached the end (false: it stopped at the page cap).
 */
export type ReadEvents<T> = (from: number, read: (entries: readonly T[]) => boolean) => Promise<boolean>;

/** What a (source, state) chooses of the event rule's options; the rest comes from `limits`. */
export interface ScanOptions {
  /** Time units per second: 1000 for Unix ms, 1 for Unix seconds. */
  readonly perSecond: number;
  /** Whether pages come newest first by the event's time (EventRuleOptions.ordered). */
  readonly ordered: boolean;
  /** Entries a page holds at most: with limits.max_event_pages, the identities a state keeps. */
  readonly pageSize: number;
  /** Histogram bounds (seconds) of the events' values; none for a plain counter. */
  readonly buckets?: readonly number[];
  /** New label sets this state may hold (limits.max_event_series when absent). */
  readonly maxSeries?: number;
  /** Whether an identity is one event only at one time (EventRuleOptions.timedIdentity). */
  readonly timedIdentity?: boolean;
  /** The budget of the first label shared with the other states or family of a ratio. */
  readonly keys?: KeyBudget;
  /** How far below the window the source reads (ms; EventRuleOptions.pendingWindow). */
  readonly pendingWindowMs?: number;
}

/** A (source, state)'s scan once finished. */
export interface StateScan {
  readonly result: ScanResult;
  /** Whether it was the state's first poll (it counted from the source's start). */
  readonly first: boolean;
  /** With `byLabel`: what is counted by listed label, one series per label, kept with the state. */
  readonly byLabel?: readonly EventSeries[];
}

/** One poll of an event source: its scans, one per state, and what they say together. */
export class EventPoll {
  /** Entry fields rejected by any read of this poll, `time` for an event whose time is not a time. */
  readonly rejected = new Set<string>();
  /** Label values not exported: what the cap folded (once a poll each), and the source's own cuts. */
  truncated = 0;
  readonly #folded = new Set<string>();
  readonly #request: PollRequest;
  readonly #source: SourceName;
  readonly #metrics: ScanMetrics;
  readonly #said = new ScanWarnings();
  readonly #scans: Sample[] = [];

  constructor(request: PollRequest, source: SourceName, metrics: ScanMetrics) {
    this.#request = request;
    this.#source = source;
    this.#metrics = metrics;
  }

  /**
   * Reads `list` with the one pager on the entry's path, moving to the SDK's for good after a 404
   * (docs/metrics.md, Delivery errors and workflow runs), `query(from)` sent with each page.
   */
  pages<S extends z.ZodType<object>, T>(
    list: EventList<S, T>,
    query: (from: number) => PagerTarget['query'],
  ): ReadEvents<T> {
    const { client, account, limits, signal, deadline, events } = this.#request;
    return async (from, read) => {
      const paging = await scanEvents(
        client,
        list,
        events.sdkPaths.has(this.#source),
        { ...account, maxPages: limits.maxEventPages, signal, deadline, query: query(from) },
        (page) => (read(page.entries) ? 'more' : 'stop'),
      );
      if (paging.sdk) events.useSdkPath(this.#source, list.sdk.path);
      for (const field of paging.rejected) this.rejected.add(field);
      return paging.end === 'last_page';
    };
  }

  /**
   * Scans `state` (its `state` label as sent upstream): reads its events with `read`, each page
   * turned into counted events by `count`, and stores the state the rule leaves.
   */
  async scan<T>(
    state: string,
    options: ScanOptions,
    read: ReadEvents<T>,
    count: (entries: readonly T[]) => readonly CountedEvent[],
    byLabel?: (entries: readonly T[]) => readonly CountedEvent[],
  ): Promise<StateScan> {
    const { account, limits, events } = this.#request;
    const { perSecond } = options;
    const inUnit = (ms: number): number => Math.floor((ms * perSecond) / 1000);
    const key = `${this.#source}/${state}`;
    const before = events.states.get(key);
    const scan = new EventScan(before ?? startState(inUnit(events.since)), {
      perSecond,
      maxSeries: options.maxSeries ?? limits.maxEventSeries,
      ordered: options.ordered,
      ...(options.buckets !== undefined && { buckets: options.buckets }),
      settle: inUnit(limits.eventSettle),
      now: inUnit(Date.now()),
      maxKept: limits.maxEventPages * options.pageSize,
      ...(options.timedIdentity !== undefined && { timedIdentity: options.timedIdentity }),
      ...(options.keys !== undefined && { keys: options.keys }),
      ...(options.pendingWindowMs !== undefined && { pendingWindow: inUnit(options.pendingWindowMs) }),
    });
    // By label (docs/metrics.md, Your own labels): the same pages counted again, an event once per
    // listed label it carries, on a state of its own (`…/labels`) kept beside the state's, so that
    // it lives as long and no event is counted twice under one label. Started at the state's W when
    // a reload adds the labels.
    const labelKey = `${key}/labels`;
    const labelled =
      byLabel === undefined
        ? undefined
        : new EventScan(
            events.states.get(labelKey) ?? startState(before?.watermark ?? inUnit(events.since)),
            {
              perSecond,
              // Bounded by the entry's list: one series per listed value.
              maxSeries: Number.MAX_SAFE_INTEGER,
              ordered: options.ordered,
              settle: inUnit(limits.eventSettle),
              now: inUnit(Date.now()),
              maxKept: limits.maxEventPages * options.pageSize,
              ...(options.timedIdentity !== undefined && { timedIdentity: options.timedIdentity }),
            },
          );
    const reachedEnd = await read(scan.from, (entries) => {
      if (labelled !== undefined && byLabel !== undefined) labelled.read(byLabel(entries));
      return scan.read(count(entries));
    });
    const result = scan.finish(reachedEnd);
    const labelSeries = labelled?.finish(reachedEnd).state;
    if (labelSeries !== undefined) events.states.set(labelKey, labelSeries);
    if (result.future + result.implausible > 0) this.rejected.add('time');
    events.states.set(key, result.state);
    // A destination folded in two states of one poll is one label value cut, said once.
    for (const folded of result.folded)
      if (!this.#folded.has(folded)) {
        this.#folded.add(folded);
        this.truncated++;
      }
    this.#said.add(state, result);
    this.#scans.push(...scanSamples(this.#metrics, account.name, state, result.state, perSecond));
    return {
      result,
      first: before === undefined,
      ...(labelSeries !== undefined && { byLabel: labelSeries.series }),
    };
  }

  /**
   * The poll's result: `samples`, then the scans' own; the warnings `trouble` first, then the
   * scans' (`what` names the span read: the log, the window), then `more`.
   */
  result(
    samples: readonly Sample[],
    said: { readonly what: string; readonly trouble?: readonly string[]; readonly more?: readonly string[] },
  ): SourceResult {
    return {
      samples: [...samples, ...this.#scans],
      rejectedFields: [...this.rejected],
      ...(this.truncated > 0 && { labelValuesDropped: this.truncated }),
      warnings: [
        ...(said.trouble ?? []),
        ...this.#said.warnings(this.#request.limits, said.what),
        ...(said.more ?? []),
      ],
      logs: this.#said.logs(),
    };
  }
}
