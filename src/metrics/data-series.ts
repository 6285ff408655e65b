import type { DataMetric } from './catalogue.js';
import type { Sample } from './sample.js';
import { unitBytes, unitText, type UnitBytes } from './unit-bytes.js';

export { DuplicateSeriesError } from './unit-bytes.js';

/** What changed of one unit since the last {@link DataSeries.takeChanges}: its new bytes, or gone. */
export interface UnitChange {
  readonly id: string;
  /** Undefined: the unit's series are gone. */
  readonly unit: UnitBytes | undefined;
}

/**
 * The poll worker's side of the series it exports, by unit. A large account is ~80,000 series and
 * 14 MB of text, so the bytes are kept once, where they are served: a unit's lines are rendered when
 * its poll lands (unit-bytes.ts) and handed over at the next publication (their memory moves
 * with them); this side keeps only each unit's hash, to know whether a poll changed anything.
 * `metrics` are every family a unit may fill, in exposition order (the serving side's
 * catalogue of the section).
 */
export class DataSeries {
  readonly metrics: readonly DataMetric[];
  /**
   * Per unit exported: the hash of the bytes the serving side holds (undefined: none yet, or held
   * from a dead worker, hash not known).
   */
  readonly #held = new Map<string, number | undefined>();
  /** What changed since the last {@link takeChanges}, the latest of each unit. */
  #pending = new Map<string, UnitChange>();
  #version = 0;

  constructor(metrics: readonly DataMetric[]) {
    this.metrics = metrics;
  }

  /**
   * Takes the units the serving side holds already (a restarted worker continues from them): they
   * count as exported until a poll replaces them or they are dropped, and nothing is sent for them.
   */
  adopt(ids: Iterable<string>): void {
    for (const id of ids) if (!this.#held.has(id)) this.#held.set(id, undefined);
  }

  /**
   * Replaces every series of a unit: whatever the new samples do not name is gone. Two samples with
   * one name and label set throw DuplicateSeriesError and leave the unit's series as they were.
   */
  replace(id: string, samples: readonly Sample[]): void {
    const text = unitText(samples);
    const sent = this.#held.get(id);
    if (!this.#held.has(id)) this.#held.set(id, undefined);
    if (sent === text.hash) {
      // What the serving side holds already: a change still waiting to be sent is moot, and no
      // buffer is made for it (a poll that changes nothing allocates no bytes outside the heap).
      if (this.#pending.delete(id)) this.#version++;
      return;
    }
    this.#pending.set(id, { id, unit: unitBytes(text) });
    this.#version++;
  }

  /** Drops every series of a unit (its data went stale, or it is gone). */
  drop(id: string): void {
    if (!this.#held.delete(id)) return;
    this.#pending.set(id, { id, unit: undefined });
    this.#version++;
  }

  /** Whether a unit currently has series exported. */
  has(id: string): boolean {
    return this.#held.has(id);
  }

  /** The units exported. */
  ids(): IterableIterator<string> {
    return this.#held.keys();
  }

  /** Moves with every change not yet taken. */
  get version(): number {
    return this.#version;
  }

  /** What changed since the last call, each unit once; its bytes are the caller's from now on. */
  takeChanges(): UnitChange[] {
    const changes = [...this.#pending.values()];
    this.#pending = new Map();
    for (const { id, unit } of changes) {
      if (unit !== undefined && this.#held.has(id)) this.#held.set(id, unit.hash);
    }
    return changes;
  }
}
