import { SOURCES } from '../source-registry.js';
import type { SourceName } from '../vocabulary.js';

type Sources = typeof SOURCES;
/** Every simulated endpoint the registry's rows name (src/source-registry.ts, `simulator`). */
type Spec = Awaited<ReturnType<Sources[SourceName]['simulator']>>[number];

/**
 * Every simulated endpoint, once, in the registry's order: the endpoints each source reads, as its row
 * of the registry names them, loaded here as the simulator's modules are imported (a top-level await,
 * so that the simulator reads them synchronously; an endpoint module must not import this one, whose
 * await would wait for it). A path is matched against them in this order, and no path matches two of
 * them (test/demo/routes.test.ts), so a new row cannot shadow a route. Adding an endpoint: its module
 * and the row of the source it serves. Its body is a `OneBody` (`bodies.ts`); a listing's is a
 * `listingBody` over its registry (`registries.ts`), and the endpoint of each listed item
 * (`path: '/v2/…/{id}'`) a `PerIdBodies` over the same registry, so both agree on who exists when.
 */
export const ENDPOINTS: readonly Spec[] = [
  ...new Set(
    (
      await Promise.all((Object.keys(SOURCES) as SourceName[]).map((name) => SOURCES[name].simulator()))
    ).flat(),
  ),
];

/** The Upstash operations the simulator serves. */
export type Route = Spec['name'];

/** Every route, in a fixed order. */
export const ROUTES: readonly Route[] = ENDPOINTS.map((e) => e.name);

/** Each route's endpoint instance by route name, typed, so the simulator can reach its controls. */
export type Endpoints = { [E in Spec as E['name']]: ReturnType<E['create']> };
