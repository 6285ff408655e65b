import type { UpstashClient } from '../upstash/client.js';
import { sourceKind, type SourceName } from './kinds.js';
import { ownsUnit, type Shard } from './shards.js';
import {
  UNIT_KINDS,
  type DatabaseSelection,
  type SourceAccount,
  type SourceKind,
  type SourceLimits,
  type SourceResult,
  type UnitKind,
} from './source.js';

/** The unit kinds polled per ID (not once per account). */
export type PerIdUnit = Exclude<UnitKind, 'account'>;

/** One config entry as the sources see it: an account, the sources it enables, and their units. */
export interface SourceEntry {
  /** Unique among the entries: the poll group of its units. */
  readonly key: string;
  readonly account: SourceAccount;
  readonly sources: readonly SourceName[];
  /**
   * The IDs of the entry's per-ID sources, by unit kind: a configured list, or `discovered` when a
   * listing source of the entry says which there are (they join and leave as it polls).
   */
  readonly units: Readonly<Record<PerIdUnit, readonly string[] | 'discovered'>>;
  /** Which listed databases the entry polls (management entries); all when absent. */
  readonly databases?: DatabaseSelection;
}

/** The labels of a unit's health series; a unit label that does not apply is empty. */
export type UnitLabels = { readonly source: string; readonly account: string } & Readonly<
  Record<NonNullable<(typeof UNIT_KINDS)[UnitKind]>, string>
>;

/** One polled unit: a source of an account, or a source of one database (or instance) of it. */
export interface SourceUnit {
  /** `<source>/<account>/<id>`, the id empty for account-wide sources: stable and unique. */
  readonly id: string;
  readonly labels: UnitLabels;
  /** For per-ID units, `<source>/<account>`: spread over the interval, replaced together. */
  readonly family?: string;
  /**
   * Polled by this shard only to learn the units it owns (a listing owned by another shard): it
   * exports nothing and reports no health of its own.
   */
  readonly silent?: boolean;
  poll(context: { readonly signal: AbortSignal; readonly deadline: number }): Promise<SourceResult>;
}

/** What every unit's poll shares. */
export interface UnitDeps {
  readonly client: UpstashClient;
  readonly limits: SourceLimits;
  readonly shard: Shard;
  /**
   * The IDs each entry's listings last reported, by `<entry key>/<unit kind>`; it outlives reloads,
   * so that a reload rebuilds the discovered units (with its new client) instead of dropping them
   * until the next listing.
   */
  readonly known: Map<string, readonly string[]>;
  /** A listing learnt an entry's IDs: `units` are now the whole family `family` of group `key`. */
  readonly onDiscovered: (key: string, family: string, units: readonly SourceUnit[]) => void;
}

/**
 * The units this shard polls for an entry from the start: its own account-wide and listed per-ID
 * units, and the listings of other shards whose news it needs to learn the units it owns.
 */
export function entryUnits(entry: SourceEntry, deps: UnitDeps): SourceUnit[] {
  return entry.sources.flatMap((name) => {
    const kind = sourceKind(name);
    if (kind.per === 'account') {
      const unit = sourceUnit(entry, kind, '', deps);
      if (ownsUnit(unit.id, deps.shard)) return [unit];
      return kind.lists !== undefined && waitsForListing(entry, kind.lists)
        ? [{ ...unit, silent: true }]
        : [];
    }
    const listed = entry.units[kind.per];
    const ids = listed === 'discovered' ? (deps.known.get(`${entry.key}/${kind.per}`) ?? []) : listed;
    return ids.map((id) => sourceUnit(entry, kind, id, deps)).filter((unit) => ownsUnit(unit.id, deps.shard));
  });
}

/** Whether a per-ID source of the entry takes its IDs from the listing of `unit`. */
function waitsForListing(entry: SourceEntry, unit: PerIdUnit): boolean {
  return entry.units[unit] === 'discovered' && entry.sources.some((name) => sourceKind(name).per === unit);
}

/** The unit of `kind` for `id` (a database or instance ID, or '' for an account-wide source). */
function sourceUnit(entry: SourceEntry, kind: SourceKind, id: string, deps: UnitDeps): SourceUnit {
  const { account } = entry;
  const unitLabel = UNIT_KINDS[kind.per];
  const labels: UnitLabels = {
    source: kind.name,
    account: account.name,
    database_id: '',
    qstash_id: '',
    index_id: '',
  };
  return {
    id: `${kind.name}/${account.name}/${id}`,
    labels: unitLabel === undefined ? labels : { ...labels, [unitLabel]: id },
    ...(kind.per !== 'account' && { family: `${kind.name}/${account.name}` }),
    poll: async ({ signal, deadline }) => {
      const result = await kind.poll({
        ...deps,
        account,
        unit: id,
        signal,
        deadline,
        ...(entry.databases !== undefined && { databases: entry.databases }),
      });
      if (result.discovered !== undefined) discovered(entry, result.discovered, deps);
      return result;
    },
  };
}

/** Hands a listing's IDs to every per-ID source of the entry that waits for them. */
function discovered(entry: SourceEntry, news: NonNullable<SourceResult['discovered']>, deps: UnitDeps): void {
  if (entry.units[news.unit] !== 'discovered') return;
  deps.known.set(`${entry.key}/${news.unit}`, news.ids);
  for (const name of entry.sources) {
    const kind = sourceKind(name);
    if (kind.per !== news.unit) continue;
    const units = news.ids
      .map((id) => sourceUnit(entry, kind, id, deps))
      .filter((unit) => ownsUnit(unit.id, deps.shard));
    deps.onDiscovered(entry.key, `${kind.name}/${entry.account.name}`, units);
  }
}
