import type { Answer } from './answer.js';
import type { Opening } from './opening.js';
import { matchPath, type RouteParams } from './paths.js';
import type { Registries } from './registries.js';

/** With `churn`, keys and URL groups are reshuffled once per this many clock milliseconds. */
export const CHURN_PERIOD_MS = 30_000;

/** The churn period time t falls in; members kept or added depend only on it. */
export function churnEpoch(t: number): number {
  return Math.floor(t / CHURN_PERIOD_MS);
}

/** A list of `count` members: the demo's own first, then generated ones, `generate` given each index. */
export function demoThenGenerated<T>(own: readonly T[], count: number, generate: (index: number) => T): T[] {
  const generated = Array.from({ length: Math.max(0, count - own.length) }, (_, k) =>
    generate(own.length + k),
  );
  return [...own.slice(0, count), ...generated];
}

/** What a route demands: QStash's bearer token, or the management API's basic e-mail and key. */
export type Credential = 'bearer' | 'basic';

/** What every endpoint is given when a simulator starts. */
export interface EndpointContext {
  /** Seed of every generated value, an unsigned 32-bit integer. */
  readonly seed: number;
  /** The clock at start-up. */
  readonly origin: number;
  /** The clock; it stands still at `origin` when frozen. */
  readonly now: () => number;
  /** Whether bodies are kept until the data changes, so responses are byte-identical. */
  readonly frozen: boolean;
  /** Whether generated lists gain and lose members every {@link CHURN_PERIOD_MS}. */
  readonly churn: boolean;
  /** What the account's listings list, one copy each, shared by the endpoints that serve it. */
  readonly registries: Registries;
  /** When the event logs were first read, and gained their opening events (opening.ts). */
  readonly opening: Opening;
}

/** One simulated endpoint's data, and how it answers a request that passed the route's auth. */
export interface Endpoint {
  /** The answer to an authenticated GET of the route; `query` is its query string (paging). */
  answer(params: RouteParams, query?: URLSearchParams): Answer;
}

/** Everything the server needs to know about a route. */
export interface RouteSpec<Name extends string> {
  /** The route's name, as `setFault`, `requests` and the benchmarks know it. */
  readonly name: Name;
  /** The credential the route checks before anything else but faults. */
  readonly credential: Credential;
  /**
   * The route's path as Upstash's descriptions write it: each `{name}` one URL-encoded segment, taken
   * as the parameter `name` (`/v2/redis/stats/{id}`).
   */
  readonly path: string;
  /** The path parameters if `path` (query removed) is this route's, else undefined. */
  match(path: string): RouteParams | undefined;
  /** Start and end of the body the oversize fault pads, so only its size is wrong, not its shape. */
  readonly oversizeFrame: readonly [head: string, tail: string];
}

/** A simulated endpoint: its route, and how to build its data. Adding an endpoint is writing one of these. */
export interface EndpointSpec<Name extends string, Options, E extends Endpoint> extends RouteSpec<Name> {
  /** Builds the endpoint's data for one simulator. */
  create(ctx: EndpointContext, options: Options): E;
}

/**
 * Declares an endpoint, keeping its name a literal type so the route union can be derived from a table,
 * and its matcher made from its `path`, so that a test can tell that no path is two routes' (the order
 * of the table then does not matter).
 */
export function defineEndpoint<const Name extends string, Options, E extends Endpoint>(
  spec: Omit<EndpointSpec<Name, Options, E>, 'match'>,
): EndpointSpec<Name, Options, E> {
  return { ...spec, match: matchPath(spec.path) };
}
