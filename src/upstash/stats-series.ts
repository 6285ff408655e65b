import { InvalidResponseError } from './errors.js';
import { parseGoTime, parseGoTimeNs } from './go-time.js';
import { entryObject, isNumber } from './tolerance.js';

// The rules of a stats body (docs/metrics.md, Redis database statistics), kept here once for every stats
// parser (Redis, QStash, and the Vector and Search stats whose latencies are series of the same shape).

/** Points dated further than this after our clock are skipped: Upstash pads daily arrays with the month. */
export const FUTURE_HORIZON_MS = 5 * 60_000;

/** One usable point of a series: its time in exact Unix nanoseconds, as sent, and its value. */
export interface Point {
  readonly at: bigint;
  readonly x: string;
  readonly y: number;
  /** The point as sent, for the figures some series carry beside `y` (see {@link StatsBody.figure}). */
  readonly sent: Readonly<Record<string, unknown>>;
}

/** Why a field is rejected alone: its value, or one of its points, has the wrong type. */
class RejectedField extends Error {}

/** Rejects the field being read (inside {@link StatsBody.field}): its value has the wrong type. */
export function rejectField(): never {
  throw new RejectedField();
}

/** `value` as an object whose fields can be read ({@link entryObject}); else rejects the field being read. */
export function objectEntry(value: unknown): Readonly<Record<string, unknown>> {
  return entryObject(value) ?? rejectField();
}

/**
 * One stats body read with the stats tolerance. A body that is not a JSON object is invalid; a known
 * field that is missing or null gives nothing; one of the wrong type (a series with one malformed
 * point included) is skipped alone and named in {@link rejected}.
 */
export class StatsBody<F extends string> {
  readonly #body: Record<string, unknown>;
  // Compared in exact nanoseconds: points can be closer together than a double of Unix ms resolves.
  readonly #horizon: bigint;
  // The series of a body share their timestamps (60 of them across some 900 points): parse each once.
  readonly #times = new Map<string, bigint>();
  readonly #rejected: F[] = [];
  #newest: Point | undefined;

  constructor(json: unknown, url: string, nowMs: number) {
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new InvalidResponseError('GET', url, 'wrong shape at top level: expected an object');
    this.#body = json as Record<string, unknown>;
    this.#horizon = BigInt(Math.floor(nowMs + FUTURE_HORIZON_MS)) * 1_000_000n;
  }

  /** Known fields skipped alone for their wrong type, in the order they were read (Upstash's names). */
  get rejected(): readonly F[] {
    return this.#rejected;
  }

  /**
   * Unix ms of the newest point among those {@link seen} (every series read, and the points a
   * caller kept from a field of its own); undefined when there was none.
   */
  get newestMs(): number | undefined {
    return this.#newest === undefined ? undefined : parseGoTime(this.#newest.x);
  }

  /**
   * Reads field `name` with `read`: undefined when the field is missing or null, or when `read`
   * rejects it (then it is named in {@link rejected}).
   */
  field<T>(name: F, read: (value: unknown) => T | undefined): T | undefined {
    return this.#read(name, this.#body[name], read);
  }

  #read<T>(name: F, value: unknown, read: (value: unknown) => T | undefined): T | undefined {
    if (value === null || value === undefined) return undefined;
    try {
      return read(value);
    } catch (error) {
      if (!(error instanceof RejectedField)) throw error;
      this.#rejected.push(name);
      return undefined;
    }
  }

  /** The latest value of each series field and the value of each number field, where there is one. */
  values<V extends F>(series: readonly V[], numbers: readonly V[]): Partial<Record<V, number>> {
    const values: Partial<Record<V, number>> = {};
    for (const field of series) {
      const value = this.series(field);
      if (value !== undefined) values[field] = value;
    }
    for (const field of numbers) {
      const value = this.number(field);
      if (value !== undefined) values[field] = value;
    }
    return values;
  }

  /** A plain number field (see {@link isNumber}). */
  number(name: F): number | undefined {
    return this.field(name, (value) => (isNumber(value) ? value : rejectField()));
  }

  /** The value of the latest point of series field `name`; its time counts for {@link newestMs}. */
  series(name: F): number | undefined {
    return this.latestOf(name)?.y;
  }

  /** The latest point of series field `name` ({@link latest}); its time counts for {@link newestMs}. */
  latestOf(name: F): Point | undefined {
    const point = this.field(name, (points) => this.latest(points));
    if (point !== undefined) this.seen(point);
    return point;
  }

  /**
   * The sum of the usable points of series field `name` (a count over the last hour, one point a
   * minute): 0 when none is usable; the newest counts for {@link newestMs}.
   */
  sum(name: F): number | undefined {
    const usable = this.field(name, (points) => this.#usable(points));
    if (usable?.latest !== undefined) this.seen(usable.latest);
    return usable?.sum;
  }

  /**
   * Figure `key` of `point` besides its `y` (a latest point that carries more than one count), read
   * as a number field: named `name` in {@link rejected} when it has the wrong type.
   */
  figure(point: Point, key: string, name: F): number | undefined {
    return this.#read(name, point.sent[key], (value) => (isNumber(value) ? value : rejectField()));
  }

  /**
   * The latest usable point of `points`: the greatest `x`, not the last in the array. A point whose
   * `y` is null is skipped whatever its `x` says (or lacks); so is one dated past the horizon. A
   * point of another shape (no `x`, an `x` that is not a time, a `y` that is not a number) rejects
   * the whole series: throws, for {@link field} to catch.
   */
  latest(points: unknown): Point | undefined {
    return this.#usable(points).latest;
  }

  /** The sum of the usable points of `points`, by the rule of {@link latest}; 0 when none is. */
  sumOf(points: unknown): number {
    return this.#usable(points).sum;
  }

  /** One walk of a series by the rule of {@link latest}: its latest usable point and their sum. */
  #usable(points: unknown): { latest: Point | undefined; sum: number } {
    if (!Array.isArray(points)) rejectField();
    let latest: Point | undefined;
    let sum = 0;
    for (const p of points as unknown[]) {
      const point = objectEntry(p);
      const { x, y } = point;
      if (y === null) continue;
      if (typeof x !== 'string' || !isNumber(y)) rejectField();
      const at = this.#time(x);
      if (at > this.#horizon) continue;
      sum += y;
      if (latest === undefined || at > latest.at) latest = { at, x, y, sent: point };
    }
    return { latest, sum };
  }

  /** Counts `point` for {@link newestMs}: a point of a field the caller kept. */
  seen(point: Point): void {
    if (this.#newest === undefined || point.at > this.#newest.at) this.#newest = point;
  }

  #time(x: string): bigint {
    let at = this.#times.get(x);
    if (at === undefined) {
      at = parseGoTimeNs(x) ?? rejectField();
      this.#times.set(x, at);
    }
    return at;
  }
}
