/** Something a listing lists, known by its ID. */
export interface Listed {
  readonly id: string;
}

/** Who a listing lists: a fixed list, or a list that depends on the clock. */
export type Listing<T> = readonly T[] | ((t: number) => readonly T[]);

/**
 * What one listing lists at each moment, kept once per simulator: the listing endpoint and every
 * per-ID endpoint of its items (stats, backups) read this one copy, so they agree on who exists when.
 */
export class Registry<T extends Listed> {
  readonly #now: () => number;
  readonly #listeners: (() => void)[] = [];
  #listing: Listing<T>;

  constructor(now: () => number, listing: Listing<T>) {
    this.#now = now;
    this.#listing = listing;
  }

  /** The items listed at time t, by default now (a fixed list does not read the clock). */
  listed(t?: number): readonly T[] {
    return typeof this.#listing === 'function' ? this.#listing(t ?? this.#now()) : this.#listing;
  }

  /** The item called `id` now, if listed. */
  find(id: string): T | undefined {
    return this.listed().find((item) => item.id === id);
  }

  /** Lists exactly these items from now on, and tells every endpoint that serves them. */
  replace(items: readonly T[]): void {
    this.#listing = items;
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` whenever {@link Registry.replace} changes the items. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }
}
