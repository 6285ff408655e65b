import type { Sample } from '../metrics/sample.js';
import type { UpstashClient } from '../upstash/client.js';
import { sourceKind, type SourceName } from './kinds.js';
import {
  UNIT_KINDS,
  type SourceAccount,
  type SourceKind,
  type SourceLimits,
  type UnitKind,
} from './source.js';

/** One config entry as the sources see it: an account, the sources it enables, and their units. */
export interface SourceEntry {
  readonly account: SourceAccount;
  readonly sources: readonly SourceName[];
  /** The IDs of the entry's per-unit sources, by unit kind (the configured database IDs). */
  readonly units: Readonly<Record<Exclude<UnitKind, 'account'>, readonly string[]>>;
}

/** The labels of a unit's health series; a unit label that does not apply is empty. */
export type UnitLabels = { readonly source: string; readonly account: string } & Readonly<
  Record<NonNullable<(typeof UNIT_KINDS)[UnitKind]>, string>
>;

/** One polled unit: a source of an account, or a source of one database of it. */
export interface SourceUnit {
  /** `<source>/<account>/<id>`, the id empty for account-wide sources: stable and unique. */
  readonly id: string;
  readonly labels: UnitLabels;
  poll(context: { readonly signal: AbortSignal; readonly deadline: number }): Promise<Sample[]>;
}

/** What every unit's poll shares. */
export interface UnitDeps {
  readonly client: UpstashClient;
  readonly limits: SourceLimits;
}

/** Every unit an entry's sources poll, in the order of its `sources`, then of its IDs. */
export function entryUnits(entry: SourceEntry, deps: UnitDeps): SourceUnit[] {
  return entry.sources.flatMap((name) => {
    const kind = sourceKind(name);
    const ids = kind.per === 'account' ? [''] : entry.units[kind.per];
    return ids.map((id) => sourceUnit(kind, entry.account, id, deps));
  });
}

/** The unit of `kind` for `id` (a database ID, or '' for an account-wide source). */
export function sourceUnit(kind: SourceKind, account: SourceAccount, id: string, deps: UnitDeps): SourceUnit {
  const unitLabel = UNIT_KINDS[kind.per];
  const labels: UnitLabels = { source: kind.name, account: account.name, database_id: '' };
  return {
    id: `${kind.name}/${account.name}/${id}`,
    labels: unitLabel === undefined ? labels : { ...labels, [unitLabel]: id },
    poll: async ({ signal, deadline }) => kind.poll({ ...deps, account, unit: id, signal, deadline }),
  };
}
