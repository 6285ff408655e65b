/** Caps how many requests are in flight at once, across every source. */
export class Semaphore {
  #available: number;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#available = limit;
  }

  /** Waits for a slot; call the returned function exactly once to give it back. */
  async acquire(): Promise<() => void> {
    if (this.#available > 0) {
      this.#available -= 1;
    } else {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // Hand the slot straight to the next waiter, so a newcomer cannot overtake it.
      if (next === undefined) this.#available += 1;
      else next();
    };
  }
}
