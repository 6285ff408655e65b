import type { DataMetric } from '../metrics/catalogue.js';
import { SOURCES } from '../source-registry.js';
import type { SourceName } from '../vocabulary.js';
import type { SourceKind } from './source.js';

type Sources = typeof SOURCES;
/** What the row `Name` of the registry loads as its kind. */
type KindOf<Name extends SourceName> = Awaited<ReturnType<Sources[Name]['kind']>>;

/**
 * Type-checks only while the kind of every row of the registry (src/source-registry.ts) is a
 * SourceKind of that row's own name: a row that loaded another source's kind would poll one source
 * twice and another never. (Its API is the row's alone: the config lists the source under it.)
 */
export type EveryRowItsKind = NeverOr<
  { [Name in SourceName]: KindOf<Name> extends SourceKind<Name> ? never : Name }[SourceName]
>;
type NeverOr<Wrong extends never> = Wrong;

/**
 * Every kind of source, in the registry's order, which is the order their families are exposed.
 * The registry names each module without loading it (so that the serving thread, which reads its
 * names, loads no source); this is where the poll worker loads them, once, as it imports this module
 * (a top-level await: its first poll, and every synchronous reader below, come after). A source module
 * must therefore not import this one, nor units.ts: its import would wait for this await, which waits
 * for it.
 */
export const SOURCE_KINDS: readonly SourceKind[] = await Promise.all(
  (Object.keys(SOURCES) as SourceName[]).map((name) => SOURCES[name].kind()),
);

/** The kind of source called `name`. */
export function sourceKind(name: SourceName): SourceKind {
  const kind = SOURCE_KINDS.find((candidate) => candidate.name === name);
  if (kind === undefined) throw new Error(`unknown source ${name}`);
  return kind;
}

/** Every data family of every source, in exposition order. */
export const DATA_METRICS: readonly DataMetric[] = SOURCE_KINDS.flatMap((kind) => kind.metrics);
