import { setTimeout as sleep } from 'node:timers/promises';
import type { Route } from '../src/demo/simulator.js';

/** One poll cycle as Upstash (the simulator) saw it. */
export interface CycleFigures {
  /** Upstash requests that arrived between this cycle's tick and the next one's. */
  readonly requests: number;
  /** Distinct paths among them: one per unit when none was missed. */
  readonly paths: number;
  /** Requests beyond the first for a path: a unit polled twice in the cycle. */
  readonly duplicates: number;
  /** `GET /v2/redis/stats/{id}` requests of the cycle. */
  readonly statsRequests: number;
  /** From the first of those requests to the last. */
  readonly statsSpanMs: number;
  /** The most of them that arrived within one second: a burst, if well above requests per interval. */
  readonly statsPeakPerSecond: number;
}

/** The sources polled once per database or QStash instance; every other one is polled at the tick. */
const PER_UNIT_ROUTES: ReadonlySet<Route> = new Set<Route>(['redis_stats', 'qstash_stats']);

/** How much earlier than cron's tick its first request may seem to arrive (two clocks, rounding). */
const EARLY_TICK_MS = 20;

/** Wall-clock Unix ms with a fraction, comparable with the ticks of cron (which follow the wall clock). */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** The first tick after `t` of a schedule firing every `intervalMs` (a divisor of a minute) on the clock. */
export function nextTick(t: number, intervalMs: number): number {
  return Math.ceil(t / intervalMs) * intervalMs;
}

interface Arrival {
  readonly route: Route;
  readonly path: string;
  readonly at: number;
}

/** Every request the simulator received, with when: feed it from the simulator's `onRequest`. */
export class ArrivalLog {
  readonly #arrivals: Arrival[] = [];

  /** Notes a request arriving now. */
  record(route: Route, path: string): void {
    this.#arrivals.push({ route, path, at: wallNow() });
  }

  /** Requests that arrived up to `t`. */
  countUntil(t: number): number {
    return this.#arrivals.filter((a) => a.at <= t).length;
  }

  /** Waits until a poll of the tick at `tick` has arrived (or half an interval has gone by). */
  async waitForTick(tick: number, intervalMs: number): Promise<void> {
    await sleep(Math.max(0, tick - wallNow()));
    while (this.#marker(tick, intervalMs) === undefined && wallNow() < tick + intervalMs / 2) {
      await sleep(50);
    }
  }

  /**
   * The cycle from the tick at `from` to the one at `to`. Its edges are where each tick's first
   * request arrived (the clock's tick if none did), moved back by `leewayMs`: a unit polled at the
   * tick may arrive a hair before the account-wide request that marks it.
   */
  cycle(from: number, to: number, intervalMs: number, leewayMs: number): CycleFigures {
    const start = (this.#marker(from, intervalMs) ?? from) - leewayMs;
    const end = (this.#marker(to, intervalMs) ?? to) - leewayMs;
    const inCycle = this.#arrivals.filter((a) => a.at >= start && a.at < end);
    const perPath = new Map<string, number>();
    for (const a of inCycle) perPath.set(a.path, (perPath.get(a.path) ?? 0) + 1);
    const stats = inCycle
      .filter((a) => a.route === 'redis_stats')
      .map((a) => a.at)
      .sort((a, b) => a - b);
    return {
      requests: inCycle.length,
      paths: perPath.size,
      duplicates: inCycle.length - perPath.size,
      statsRequests: stats.length,
      statsSpanMs: stats.length === 0 ? 0 : stats[stats.length - 1]! - stats[0]!,
      statsPeakPerSecond: peakPerSecond(stats),
    };
  }

  /**
   * When the tick at `tick` reached the simulator: the first account-wide request (polled at the
   * tick itself, never in between) within half an interval after it, or a hair before.
   */
  #marker(tick: number, intervalMs: number): number | undefined {
    return this.#arrivals.find(
      (a) => !PER_UNIT_ROUTES.has(a.route) && a.at >= tick - EARLY_TICK_MS && a.at < tick + intervalMs / 2,
    )?.at;
  }
}

/** The most of the sorted times `at` that fall within one second of each other. */
function peakPerSecond(at: readonly number[]): number {
  let peak = 0;
  let first = 0;
  for (let last = 0; last < at.length; last++) {
    while (at[last]! - at[first]! >= 1000) first++;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}
