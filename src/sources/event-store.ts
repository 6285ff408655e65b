import type { EventState } from './event-rule.js';

/**
 * What the event sources of one config entry keep between polls: when the entry began to be polled
 * (W's start, Unix ms), each (source, state)'s {@link EventState} under `<source>/<state>`, and
 * the sources that moved to the SDK's path after a 404 (10.1). Plain data, so that whoever must
 * carry it (a reload, a restarted poll thread) can copy it as it is.
 */
export interface EntryEvents {
  readonly since: number;
  readonly states: Map<string, EventState>;
  /** Sources reading the SDK's path (`/v2/events`, `/v2/workflows/events`) from now on. */
  readonly sdkPaths: Set<string>;
}

/** An entry's event state as a poll sees it: the data, and how to say a source moved to the SDK path. */
export interface EventEntry extends EntryEvents {
  /** Source `source` reads `path` (the SDK's) from now on: noted once, and told to the store's owner. */
  readonly useSdkPath: (source: string, path: string) => void;
}

/** Called once when an entry's source moves to the SDK's path (10.1: logged once, at info). */
export type OnSdkPath = (entry: string, source: string, path: string) => void;

/**
 * The event state of every entry, for the life of the process: a reload that keeps an entry keeps
 * its watermarks and counters (the units are rebuilt, this is not); an entry removed drops them, and
 * so does a source the entry no longer lists. An entry that appears starts at the time it appeared.
 */
export class EventStore {
  readonly #entries = new Map<string, EntryEvents>();
  readonly #now: () => number;
  readonly #onSdkPath: OnSdkPath;

  constructor(options: { readonly now?: () => number; readonly onSdkPath?: OnSdkPath } = {}) {
    this.#now = options.now ?? Date.now;
    this.#onSdkPath = options.onSdkPath ?? (() => undefined);
  }

  /** Keeps the entries of a configuration (key and sources), starting the new ones now. */
  retain(entries: readonly { readonly key: string; readonly sources: readonly string[] }[]): void {
    const kept = new Set<string>();
    for (const { key, sources } of entries) {
      kept.add(key);
      const entry = this.#entries.get(key);
      if (entry === undefined) {
        this.#entries.set(key, { since: this.#now(), states: new Map(), sdkPaths: new Set() });
        continue;
      }
      for (const name of entry.states.keys())
        if (!sources.includes(name.slice(0, name.indexOf('/')))) entry.states.delete(name);
      for (const source of entry.sdkPaths) if (!sources.includes(source)) entry.sdkPaths.delete(source);
    }
    for (const key of this.#entries.keys()) if (!kept.has(key)) this.#entries.delete(key);
  }

  /** The event state of entry `key` (started now if no configuration named it yet). */
  of(key: string): EventEntry {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { since: this.#now(), states: new Map(), sdkPaths: new Set() };
      this.#entries.set(key, entry);
    }
    const { sdkPaths } = entry;
    return {
      ...entry,
      useSdkPath: (source, path) => {
        if (sdkPaths.has(source)) return;
        sdkPaths.add(source);
        this.#onSdkPath(key, source, path);
      },
    };
  }

  /** Every entry's event state, as plain data (what a restarted poll thread would need to carry). */
  snapshot(): ReadonlyMap<string, EntryEvents> {
    return this.#entries;
  }
}
