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

/**
 * The event state of every entry, for the life of the process: a reload that keeps an entry keeps
 * its watermarks and counters (the units are rebuilt, this is not); an entry removed drops them, and
 * so does a source the entry no longer lists. An entry that appears starts at the time it appeared.
 */
export class EventStore {
  readonly #entries = new Map<string, EntryEvents>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
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
  of(key: string): EntryEvents {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { since: this.#now(), states: new Map(), sdkPaths: new Set() };
      this.#entries.set(key, entry);
    }
    return entry;
  }
}
