import { isPathSegment, type UpstashClient } from '../upstash/client.js';
import {
  ownScheduleOf,
  unitLabels,
  type Limits,
  type OwnSchedule,
  type PerIdUnit,
  type PollUnit,
  type Sharding,
  type SourceName,
} from '../vocabulary.js';
import type { EventStore } from './event-store.js';
import { sourceKind } from './kinds.js';
import { ownsUnit } from './shards.js';
import type { DatabaseSelection, Listed, SourceAccount, SourceKind, SourceResult } from './source.js';

/** One config entry as the sources see it: an account, the sources it enables, and their units. */
export interface SourceEntry {
  /** Unique among the entries: the poll group of its units. */
  readonly key: string;
  readonly account: SourceAccount;
  readonly sources: readonly SourceName[];
  /**
   * The configured IDs of the entry's per-ID sources, by unit kind. A kind without them takes its
   * IDs from the entry's listing of that kind: they join and leave as it polls.
   */
  readonly ids?: Readonly<Partial<Record<PerIdUnit, readonly string[]>>>;
  /** Which listed databases the entry polls (management entries); all when absent. */
  readonly databases?: DatabaseSelection;
}

/** What every unit's poll shares. */
export interface UnitDeps {
  readonly client: UpstashClient;
  readonly limits: Limits;
  readonly shard: Sharding;
  /**
   * The IDs (and names) each entry's listings last reported, by `<entry key>/<unit kind>`; it outlives reloads,
   * so that a reload rebuilds the discovered units (with its new client) instead of dropping them
   * until the next listing.
   */
  readonly known: Map<string, Listed>;
  /**
   * The event sources' state of each entry (docs/metrics.md, Delivery errors and workflow runs); it
   * outlives reloads as `known` does.
   */
  readonly events: EventStore;
  /** A listing learnt an entry's IDs: `units` are now the whole family `family` of group `key`. */
  readonly onDiscovered: (key: string, family: string, units: readonly PollUnit[]) => void;
  /**
   * The IDs of `unit` kind that entry `key` names now and that cannot be polled (no URL can carry
   * them): all of them, each time, so that the caller can say so once per ID, not once per poll.
   */
  readonly onUnpollable: (key: string, unit: PerIdUnit, ids: readonly string[]) => void;
}

/** The units of an entry that run on one schedule: a poll group. */
export interface EntryGroup {
  /** The group's key: the entry's own, or `<entry key>/<schedule>` for an own schedule. */
  readonly key: string;
  /** The own schedule its units run on (its row's `schedule`); undefined: the entry's interval. */
  readonly schedule: OwnSchedule | undefined;
  readonly units: PollUnit[];
}

/**
 * The units this shard polls for an entry from the start, by the schedule they run on: its own
 * account-wide and per-ID units (configured, or as its listings last said), and the listings of
 * other shards whose news it needs to learn the units it owns. The group of the entry's interval
 * comes first (also when empty), then one per own schedule a source runs on, which its discovered
 * units join later.
 */
export function entryGroups(entry: SourceEntry, deps: UnitDeps): EntryGroup[] {
  const groups = new Map<string, EntryGroup>([
    [entry.key, { key: entry.key, schedule: undefined, units: [] }],
  ]);
  for (const name of entry.sources) {
    const schedule = ownScheduleOf(name);
    const key = groupKey(entry, schedule);
    let group = groups.get(key);
    if (group === undefined) {
      group = { key, schedule, units: [] };
      groups.set(key, group);
    }
    group.units.push(...sourceUnits(entry, sourceKind(name), deps));
  }
  return [...groups.values()];
}

/** The units of one source of the entry that this shard polls from the start. */
function sourceUnits(entry: SourceEntry, kind: SourceKind, deps: UnitDeps): PollUnit[] {
  if (kind.per === 'account') {
    const unit = sourceUnit(entry, kind, '', deps);
    if (ownsUnit(unit.id, deps.shard)) return [unit];
    return kind.lists !== undefined && waitsForListing(entry, kind.lists) ? [{ ...unit, silent: true }] : [];
  }
  const configured = entry.ids?.[kind.per];
  const listed = configured === undefined ? deps.known.get(`${entry.key}/${kind.per}`) : undefined;
  const ids = configured === undefined ? (listed?.ids ?? []) : pollable(entry, kind.per, configured, deps);
  return ownUnits(entry, kind, ids, deps, listed?.names);
}

/** The poll group of the entry's units on `schedule` (undefined: the entry's interval). */
function groupKey(entry: SourceEntry, schedule: OwnSchedule | undefined): string {
  return schedule === undefined ? entry.key : `${entry.key}/${schedule}`;
}

/** Whether a per-ID source of the entry takes its IDs from the listing of `unit`. */
function waitsForListing(entry: SourceEntry, unit: PerIdUnit): boolean {
  return entry.ids?.[unit] === undefined && entry.sources.some((name) => sourceKind(name).per === unit);
}

/** The units of `kind` for `ids` that this shard owns, named as their listing names them. */
function ownUnits(
  entry: SourceEntry,
  kind: SourceKind,
  ids: readonly string[],
  deps: UnitDeps,
  names?: ReadonlyMap<string, string>,
): PollUnit[] {
  return ids
    .map((id) => sourceUnit(entry, kind, id, deps, names?.get(id)))
    .filter((unit) => ownsUnit(unit.id, deps.shard));
}

/** The unit of `kind` for `id` (a database or instance ID, or '' for an account-wide source). */
function sourceUnit(
  entry: SourceEntry,
  kind: SourceKind,
  id: string,
  deps: UnitDeps,
  name?: string,
): PollUnit {
  const { account } = entry;
  return {
    id: `${kind.name}/${account.name}/${id}`,
    labels: unitLabels(kind.name, account.name, kind.per, id),
    ...(kind.per !== 'account' && { family: familyOf(entry, kind) }),
    ...(name !== undefined && name !== '' && { name }),
    ...(kind.lists !== undefined && { lists: kind.lists }),
    poll: async ({ signal, deadline }) => {
      // The poll's own count: the client's counts every wait of the process, by API.
      let burstWaits = 0;
      // Read at each poll: the latest listing's word, without rebuilding the units it did not change.
      const listedLimits =
        kind.per === 'account' ? undefined : deps.known.get(`${entry.key}/${kind.per}`)?.limits?.get(id);
      const { discovered, ...polled } = await kind.poll({
        ...deps,
        account: { ...account, onBurstWait: () => burstWaits++ },
        unit: id,
        signal,
        deadline,
        events: deps.events.of(entry.key, kind.name),
        ...(listedLimits !== undefined && { listedLimits }),
        ...(entry.databases !== undefined && { databases: entry.databases }),
      });
      const result = burstWaits === 0 ? polled : { ...polled, burstWaits };
      // The news is applied once the poller has recorded the listing, and only if no reload has
      // replaced this unit meanwhile: `deps` and `entry` are then the configuration in force.
      return discovered === undefined
        ? result
        : { ...result, onRecorded: () => learn(entry, discovered, deps) };
    },
  };
}

/** Per-ID units of one source of one account: spread over the interval, replaced together. */
function familyOf(entry: SourceEntry, kind: SourceKind): string {
  return `${kind.name}/${entry.account.name}`;
}

/** Hands a listing's IDs to every per-ID source of the entry that waits for them. */
function learn(entry: SourceEntry, news: NonNullable<SourceResult['discovered']>, deps: UnitDeps): void {
  if (entry.ids?.[news.unit] !== undefined) return;
  const ids = pollable(entry, news.unit, news.ids, deps);
  deps.known.set(`${entry.key}/${news.unit}`, {
    ids,
    names: news.names,
    ...(news.limits !== undefined && { limits: news.limits }),
  });
  for (const name of entry.sources) {
    const kind = sourceKind(name);
    if (kind.per === news.unit)
      deps.onDiscovered(
        groupKey(entry, ownScheduleOf(kind.name)),
        familyOf(entry, kind),
        ownUnits(entry, kind, ids, deps, news.names),
      );
  }
}

/** The IDs a URL can carry; the others are reported, and get no unit. */
function pollable(
  entry: SourceEntry,
  unit: PerIdUnit,
  ids: readonly string[],
  deps: UnitDeps,
): readonly string[] {
  const unpollable = ids.filter((id) => !isPathSegment(id));
  deps.onUnpollable(entry.key, unit, unpollable);
  return unpollable.length === 0 ? ids : ids.filter(isPathSegment);
}
