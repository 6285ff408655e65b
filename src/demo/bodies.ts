import { jsonAnswer } from './answer.js';
import type { Answer } from './answer.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import type { Listed, Registry } from './registry.js';
import type { RouteParams } from './paths.js';

/**
 * Bodies of a frozen simulator, kept until the data changes; when not frozen, nothing is kept. The
 * helpers below keep theirs in one; an endpoint of another shape (a paged list) keeps its own.
 */
export class BodyCache {
  readonly #frozen: boolean;
  readonly #bodies = new Map<string, Buffer>();

  constructor(frozen: boolean) {
    this.#frozen = frozen;
  }

  /** The body kept under key, else `make()` (kept, when frozen). */
  get(key: string, make: () => string): Buffer {
    const hit = this.#frozen ? this.#bodies.get(key) : undefined;
    if (hit) return hit;
    const body = Buffer.from(make());
    if (this.#frozen) this.#bodies.set(key, body);
    return body;
  }

  /** Forgets every body, because the data they were made from changed. */
  clear(): void {
    this.#bodies.clear();
  }
}

/** How a {@link OneBody} is kept and written. */
export interface OneBodyOptions {
  /** The registry the body is made from: a change to it forgets the kept body. */
  readonly follows?: Registry<Listed>;
  /** Writes the value as the body's text; default `JSON.stringify`. */
  readonly encode?: (value: unknown) => string;
}

/**
 * An endpoint that serves one body, made at the clock's time from generated data or from a test's
 * override in its place, and kept while frozen until the data changes.
 */
export class OneBody<Override = never> implements Endpoint {
  readonly #now: () => number;
  readonly #make: (t: number, override: Override | null) => unknown;
  readonly #encode: (value: unknown) => string;
  readonly #bodies: BodyCache;
  #override: Override | null = null;

  /** `make` gives the body's value at time t, from `override` when a test set one. */
  constructor(
    ctx: EndpointContext,
    make: (t: number, override: Override | null) => unknown,
    options: OneBodyOptions = {},
  ) {
    this.#now = ctx.now;
    this.#make = make;
    this.#encode = options.encode ?? ((value) => JSON.stringify(value));
    this.#bodies = new BodyCache(ctx.frozen);
    options.follows?.onChange(() => {
      this.changed();
    });
  }

  /** The test's override; `null` while generated data is served. */
  get override(): Override | null {
    return this.#override;
  }

  /** Serve a body made from this override instead of generated data; `null` goes back to generated data. */
  setOverride(override: Override | null): void {
    this.#override = override;
    this.changed();
  }

  /** Forgets the kept body, because the data it is made from changed. */
  changed(): void {
    this.#bodies.clear();
  }

  answer(): Answer {
    return {
      status: 200,
      body: this.#bodies.get('', () => this.#encode(this.#make(this.#now(), this.#override))),
    };
  }
}

/**
 * An endpoint that serves a registry's listing: every item listed now, as `entry` writes it, kept while
 * frozen until the registry changes; `encode` as in {@link OneBodyOptions}.
 */
export function listingBody<T extends Listed>(
  ctx: EndpointContext,
  registry: Registry<T>,
  entry: (item: T) => unknown,
  encode?: (value: unknown) => string,
): Endpoint {
  return new OneBody(ctx, (t) => registry.listed(t).map(entry), {
    follows: registry,
    ...(encode && { encode }),
  });
}

/**
 * An endpoint that serves one body per item a registry lists, the item named by the path's `{id}`: an
 * ID not listed now answers 404. Bodies are kept per ID while frozen, until the registry changes.
 */
export class PerIdBodies<T extends Listed> implements Endpoint {
  readonly #now: () => number;
  readonly #registry: Registry<T>;
  readonly #notFound: string;
  readonly #make: (item: T, t: number) => unknown;
  readonly #bodies: BodyCache;

  /** `make` gives the body's value for a listed item at time t; `notFound` is the 404's error text. */
  constructor(
    ctx: EndpointContext,
    registry: Registry<T>,
    notFound: string,
    make: (item: T, t: number) => unknown,
  ) {
    this.#now = ctx.now;
    this.#registry = registry;
    this.#notFound = notFound;
    this.#make = make;
    this.#bodies = new BodyCache(ctx.frozen);
    registry.onChange(() => {
      this.changed();
    });
  }

  /** Forgets the kept bodies, because what they are made from (besides the registry) changed. */
  changed(): void {
    this.#bodies.clear();
  }

  answer(params: RouteParams): Answer {
    const item = params.id === undefined ? undefined : this.#registry.find(params.id);
    if (item === undefined) return jsonAnswer(404, { error: this.#notFound });
    return {
      status: 200,
      body: this.#bodies.get(item.id, () => JSON.stringify(this.#make(item, this.#now()))),
    };
  }
}
