import type { EventState, KeyBudgetState } from './event-rule.js';

/**
 * What the event sources of one config entry keep between polls: when the entry began to be polled
 * (Unix ms), when each of its sources did (`starts`: a source a reload added starts then), each
 * (source, state)'s {@link EventState} under `<source>/<state>`, and the sources that moved to the
 * SDK's path after a 404 (docs/metrics.md, Delivery errors and workflow runs). Plain data, so that
 * whoever must carry it (a reload, a restarted poll worker) can copy it as it is.
 */
export interface EntryEvents {
  readonly since: number;
  /** Each listed source's start (W's first value), by source name. */
  readonly starts: Map<string, number>;
  readonly states: Map<string, EventState>;
  /** Sources reading the SDK's path (`/v2/events`, `/v2/workflows/events`) from now on. */
  readonly sdkPaths: Set<string>;
  /** The budgets of keys its sources share, by the names of those sources joined by a space. */
  readonly budgets: Map<string, KeyBudgetState>;
}

/** An entry's event state as one source's poll sees it. */
export interface EventEntry {
  /** When the source began to be polled (W's start, Unix ms): the entry's start, or the reload that added it. */
  readonly since: number;
  readonly states: Map<string, EventState>;
  readonly sdkPaths: Set<string>;
  /** The budgets of keys its sources share (EntryEvents.budgets). */
  readonly budgets: Map<string, KeyBudgetState>;
  /** Source `source` reads `path` (the SDK's) from now on: noted once, and told to the store's owner. */
  readonly useSdkPath: (source: string, path: string) => void;
}

/** Called once when an entry's source moves to the SDK's path (logged once, at info). */
export type OnSdkPath = (entry: string, source: string, path: string) => void;

/**
 * The event state of every entry, for the life of the process (docs/metrics.md, Delivery errors and workflow runs): a
 * reload that keeps an entry keeps its watermarks and counters (the units are rebuilt, this is not);
 * an entry removed drops them, and so does a source the entry no longer lists. An entry that appears
 * starts at the time it appeared, and so does a source a reload lists again: nothing is counted of
 * the time it was not configured.
 */
export class EventStore {
  readonly #entries = new Map<string, EntryEvents>();
  readonly #now: () => number;
  readonly #onSdkPath: OnSdkPath;

  constructor(
    options: {
      readonly now?: () => number;
      readonly onSdkPath?: OnSdkPath;
      /** What a previous holder kept (a dead poll worker's last publication): continued, not restarted. */
      readonly from?: ReadonlyMap<string, EntryEvents>;
    } = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#onSdkPath = options.onSdkPath ?? (() => undefined);
    for (const [key, entry] of options.from ?? [])
      this.#entries.set(key, {
        since: entry.since,
        starts: new Map(entry.starts),
        states: new Map(entry.states),
        sdkPaths: new Set(entry.sdkPaths),
        budgets: new Map(
          [...entry.budgets].map(([name, kept]) => [
            name,
            { admitted: new Set(kept.admitted), said: new Set(kept.said) },
          ]),
        ),
      });
  }

  /** Keeps the entries of a configuration (key and sources), starting the new entries and sources now. */
  retain(entries: readonly { readonly key: string; readonly sources: readonly string[] }[]): void {
    const kept = new Set<string>();
    const now = this.#now();
    for (const { key, sources } of entries) {
      kept.add(key);
      let entry = this.#entries.get(key);
      if (entry === undefined) {
        entry = { since: now, starts: new Map(), states: new Map(), sdkPaths: new Set(), budgets: new Map() };
        this.#entries.set(key, entry);
      }
      const listed = new Set(sources);
      for (const name of entry.states.keys())
        if (!listed.has(sourceOf(name)) || !entry.starts.has(sourceOf(name))) entry.states.delete(name);
      for (const source of entry.sdkPaths) if (!listed.has(source)) entry.sdkPaths.delete(source);
      for (const source of entry.starts.keys()) if (!listed.has(source)) entry.starts.delete(source);
      // A budget goes with the last of its sources.
      for (const name of entry.budgets.keys())
        if (!name.split(' ').some((source) => listed.has(source))) entry.budgets.delete(name);
      // A source listed again starts afresh; a state its last poll left (one in flight at the
      // reload that removed it) went above.
      for (const source of sources) if (!entry.starts.has(source)) entry.starts.set(source, now);
    }
    for (const key of this.#entries.keys()) if (!kept.has(key)) this.#entries.delete(key);
  }

  /**
   * The event state of entry `key` as `source` sees it (the entry started now if no configuration
   * named it yet); without `source`, or for a source no configuration listed, since is the entry's.
   */
  of(key: string, source?: string): EventEntry {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = {
        since: this.#now(),
        starts: new Map(),
        states: new Map(),
        sdkPaths: new Set(),
        budgets: new Map(),
      };
      this.#entries.set(key, entry);
    }
    const { sdkPaths } = entry;
    return {
      since: (source === undefined ? undefined : entry.starts.get(source)) ?? entry.since,
      states: entry.states,
      sdkPaths,
      budgets: entry.budgets,
      useSdkPath: (name, path) => {
        if (sdkPaths.has(name)) return;
        sdkPaths.add(name);
        this.#onSdkPath(key, name, path);
      },
    };
  }

  /** Every entry's event state, as plain data (what a restarted poll worker continues from). */
  snapshot(): ReadonlyMap<string, EntryEvents> {
    return this.#entries;
  }
}

/** The source of a state's key, `<source>/<state>`. */
function sourceOf(name: string): string {
  return name.slice(0, name.indexOf('/'));
}
