import { STATUS_CODES } from 'node:http';
import type { ServerResponse } from 'node:http';
import { JSON_TYPE, send } from './answer.js';
import type { Answer } from './answer.js';

/** A way for a route to misbehave; `times` limits it to the next N requests of the route. */
export type Fault = { times?: number } & (
  | { kind: 'status'; status: number; retryAfter?: string; body?: string }
  | { kind: 'hang' }
  | { kind: 'delay'; ms: number }
  | { kind: 'trickle'; bytesPerSecond?: number }
  | { kind: 'reset' }
  | { kind: 'body'; body: string; contentType?: string; status?: number }
  | { kind: 'oversize'; bytes: number; chunked?: boolean }
  | { kind: 'content-type'; contentType: string }
  /**
   * The normal answer with Upstash's burst-limit headers: `Burst-RateLimit-Remaining` and
   * `Burst-RateLimit-Reset` (Unix time in seconds; `resetIn` ms from the answer, rounded up).
   */
  | { kind: 'burst'; remaining: number; resetIn: number }
);

/** The fault set on each route, with how many more requests it applies to when limited. */
export class FaultTable<R extends string> {
  readonly #faults = new Map<R, Fault>();
  readonly #remaining = new Map<R, number>();

  /** Sets a route's fault; `null`, or `times` of zero or less, restores normal service. */
  set(route: R, fault: Fault | null): void {
    this.#remaining.delete(route);
    if (fault === null || (fault.times !== undefined && fault.times <= 0)) this.#faults.delete(route);
    else {
      this.#faults.set(route, fault);
      if (fault.times !== undefined) this.#remaining.set(route, fault.times);
    }
  }

  /** The fault for this request of the route, counting it against `times`. */
  take(route: R): Fault | undefined {
    const fault = this.#faults.get(route);
    if (!fault) return undefined;
    const left = this.#remaining.get(route);
    if (left !== undefined) {
      if (left <= 1) {
        this.#faults.delete(route);
        this.#remaining.delete(route);
      } else this.#remaining.set(route, left - 1);
    }
    return fault;
  }
}

/** Timers of delayed and trickling answers, kept so that stopping the server cancels every one. */
export class Timers {
  readonly #timers = new Set<NodeJS.Timeout>();

  /** Runs fn after ms, or every ms when repeating, until cancelled. */
  later(ms: number, fn: () => void, repeat = false): NodeJS.Timeout {
    const timer = (repeat ? setInterval : setTimeout)(() => {
      if (!repeat) this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  /** Cancels one timer. */
  cancel(timer: NodeJS.Timeout): void {
    clearInterval(timer);
    this.#timers.delete(timer);
  }

  /** Cancels every timer. */
  clear(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.clear();
  }
}

/**
 * A JSON body of exactly `bytes` (when that fits the frame) that keeps the route's outer shape, as
 * its three parts: the padding is shared between requests of one size, so that many sources hitting
 * the fault at once do not each allocate (and fill) tens of megabytes.
 */
export function oversizeBody(frame: readonly [head: string, tail: string], bytes: number): Buffer[] {
  const [head, tail] = frame;
  return [Buffer.from(head), padding(Math.max(0, bytes - head.length - tail.length)), Buffer.from(tail)];
}

// One buffer, grown to the longest padding asked and viewed at each length: the routes' frames differ in
// length, and filling tens of megabytes anew whenever the next request's padding differed by a few bytes
// held the simulator's event loop (which tests share with the exporter they scrape) for seconds.
let sharedPadding = Buffer.alloc(0);
function padding(length: number): Buffer {
  if (sharedPadding.length < length) sharedPadding = Buffer.alloc(length, 'x');
  return sharedPadding.subarray(0, length);
}

/** What a fault needs besides the response: the normal answer (computed only if used), and more. */
export interface FaultSite {
  /** The answer the route would give without the fault; auth is checked inside it. */
  normal: () => Answer;
  /** The route's oversize frame. */
  oversizeFrame: readonly [head: string, tail: string];
  /** Where timers go, so that stop() can cancel them. */
  timers: Timers;
}

/** Responds as the fault says instead of normally. */
export function applyFault(res: ServerResponse, fault: Fault, site: FaultSite): void {
  const { normal, timers } = site;
  switch (fault.kind) {
    case 'status': {
      const body = fault.body ?? JSON.stringify({ error: STATUS_CODES[fault.status] ?? 'error' });
      const extra: Record<string, string> =
        fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
      send(res, { status: fault.status, body: Buffer.from(body), headers: extra });
      return;
    }
    case 'hang':
      return;
    case 'delay': {
      const timer = timers.later(fault.ms, () => {
        if (!res.destroyed) send(res, normal());
      });
      res.on('close', () => {
        timers.cancel(timer);
      });
      return;
    }
    case 'trickle': {
      const { status, body, headers: extra } = normal();
      res.writeHead(status, { 'content-type': JSON_TYPE, ...extra });
      res.flushHeaders();
      const perTick = Math.max(1, Math.round((fault.bytesPerSecond ?? 20) / 10));
      let offset = 0;
      const timer = timers.later(
        100,
        () => {
          const chunk = body.subarray(offset, offset + perTick);
          offset += chunk.length;
          if (offset >= body.length) {
            timers.cancel(timer);
            res.end(chunk);
          } else res.write(chunk);
        },
        true,
      );
      res.on('close', () => {
        timers.cancel(timer);
      });
      return;
    }
    case 'reset': {
      const { status, body, headers: extra } = normal();
      res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': String(body.length), ...extra });
      res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))), () => {
        res.destroy();
      });
      return;
    }
    case 'body':
      send(res, { status: fault.status ?? 200, body: Buffer.from(fault.body) }, fault.contentType);
      return;
    case 'oversize': {
      const parts = oversizeBody(site.oversizeFrame, fault.bytes);
      const length = parts.reduce((sum, part) => sum + part.length, 0);
      res.writeHead(200, {
        'content-type': JSON_TYPE,
        ...(fault.chunked !== true && { 'content-length': String(length) }),
      });
      for (const part of parts) res.write(part);
      res.end();
      return;
    }
    case 'content-type':
      send(res, normal(), fault.contentType);
      return;
    case 'burst': {
      const answer = normal();
      const reset = Math.ceil((Date.now() + fault.resetIn) / 1000);
      send(res, {
        ...answer,
        headers: {
          ...answer.headers,
          'burst-ratelimit-limit': '100',
          'burst-ratelimit-remaining': String(fault.remaining),
          'burst-ratelimit-reset': String(reset),
        },
      });
      return;
    }
  }
}
