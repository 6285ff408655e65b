import type { Logger } from 'pino';
import type { Schedule } from '../config/schedule.js';
import type { Config, ManagementAccount, QstashAccount } from '../config/types.js';
import type { PollGroup } from '../poller/poller.js';
import type { SelfMetrics } from '../poller/self-metrics.js';
import { anchoredRegex } from '../sources/databases.js';
import { EventStore, type EntryEvents } from '../sources/event-store.js';
import type { Listed } from '../sources/source.js';
import { entryGroups, type SourceEntry, type UnitDeps } from '../sources/units.js';
import { UpstashClient, type Credentials } from '../upstash/client.js';
import type { OwnSchedule, PerIdUnit } from '../vocabulary.js';

/** What the poll plan needs besides each configuration. */
export interface PollPlanOptions {
  readonly version: string;
  /** Counts the client's requests and its burst-limit waits. */
  readonly metrics: SelfMetrics;
  readonly logger: Logger;
  /** Where a listing's units go (the poller's syncUnits): they are the whole family now. */
  readonly onDiscovered: UnitDeps['onDiscovered'];
  /** What the listings said before this worker (a dead one's last word): its units are planned at once. */
  readonly known?: ReadonlyMap<string, Listed>;
  /** The event sources' state a dead worker last published: what it counted is not counted again. */
  readonly events?: ReadonlyMap<string, EntryEvents>;
}

/** The groups of one configuration, and the client of the previous one if this one needs another. */
export interface Plan {
  readonly groups: PollGroup[];
  /** Close it once the polls in flight on it are over. */
  readonly retired: UpstashClient | undefined;
}

/**
 * Maps a configuration to the poller's groups, and keeps what must outlive a reload: the Upstash
 * client (kept while the HTTP settings are), the IDs the listings last said, and which listed IDs
 * were already reported as impossible to poll.
 */
export class PollPlan {
  readonly #options: PollPlanOptions;
  #client: UpstashClient | undefined;
  #http: Config['http'] | undefined;
  /** What the listings last said (IDs and names), for the life of the process (reloads included). */
  readonly #known = new Map<string, Listed>();
  readonly #unpollable = new Map<string, ReadonlySet<string>>();
  /** The event sources' watermarks and counters, per entry: a reload that keeps an entry keeps them. */
  readonly #events: EventStore;

  constructor(options: PollPlanOptions) {
    this.#options = options;
    for (const [key, listed] of options.known ?? []) this.#known.set(key, listed);
    this.#events = new EventStore({
      ...(options.events !== undefined && { from: options.events }),
      onSdkPath: (entry, source, path) =>
        options.logger.info(
          { entry, source, path },
          'documented path answered 404; reading the SDK path from now on',
        ),
    });
  }

  /** The event sources' state of every entry (published, so that a restarted worker continues from it). */
  get events(): ReadonlyMap<string, EntryEvents> {
    return this.#events.snapshot();
  }

  /** What the listings last said, by `<entry key>/<unit kind>` (an entry is replaced at each listing). */
  get known(): ReadonlyMap<string, Listed> {
    return this.#known;
  }

  /**
   * One poll group per config entry: its schedule and the units of its sources; a source on a
   * schedule of its own (`backups_interval`) runs in a group of its own, `<entry key>/<schedule>`.
   * New HTTP settings take a new client; polls in flight finish on the old one, which the caller
   * closes after them.
   */
  plan(config: Config): Plan {
    const previous = this.#client;
    const client =
      previous !== undefined && this.#http !== undefined && sameHttp(this.#http, config.http)
        ? previous
        : this.#createClient(config);
    this.#client = client;
    this.#http = config.http;
    const deps: UnitDeps = {
      client,
      limits: config.limits,
      shard: config.sharding,
      known: this.#known,
      events: this.#events,
      onDiscovered: this.#options.onDiscovered,
      onUnpollable: (key, unit, ids) => this.#reportUnpollable(key, unit, ids),
    };
    const entries = sourceEntries(config);
    this.#events.retain(entries.map(({ entry }) => entry));
    const groups = entries.flatMap(({ schedule, ownSchedules, entry }) =>
      entryGroups(entry, deps).map((group) => {
        const { cron, intervalMs } =
          group.schedule === undefined ? schedule : scheduleNamed(entry, ownSchedules, group.schedule);
        return { key: group.key, cron, intervalMs, units: group.units };
      }),
    );
    return { groups, retired: previous === client ? undefined : previous };
  }

  /** Closes the Upstash sockets. */
  async close(): Promise<void> {
    await this.#client?.close();
  }

  #createClient(config: Config): UpstashClient {
    const { version, metrics } = this.#options;
    return new UpstashClient({
      ...config.http,
      userAgent: `upstash-exporter/${version} (node ${process.version})`,
      onRequest: (api, code) => metrics.apiRequest(api, code),
      onBurstWait: (api) => metrics.burstWait(api),
    });
  }

  /** An ID no URL can carry is the listing's problem: said once while it is listed, not per poll. */
  #reportUnpollable(key: string, unit: PerIdUnit, ids: readonly string[]): void {
    const where = `${key}/${unit}`;
    const reported = this.#unpollable.get(where);
    for (const id of ids) {
      if (reported?.has(id) !== true)
        this.#options.logger.warn({ entry: key, unit, id }, 'ID cannot be put in a URL; not polled');
    }
    if (ids.length === 0) this.#unpollable.delete(where);
    else this.#unpollable.set(where, new Set(ids));
  }
}

function sameHttp(a: Config['http'], b: Config['http']): boolean {
  return (Object.keys(a) as (keyof Config['http'])[]).every((key) => a[key] === b[key]);
}

/** An entry's schedules: its interval, and the own schedules of its sources, by name. */
interface EntrySchedules {
  readonly schedule: Schedule;
  readonly ownSchedules: Readonly<Partial<Record<OwnSchedule, Schedule>>>;
}

/** The entry's own schedule `name`; the config has every one its API's sources run on. */
function scheduleNamed(
  entry: SourceEntry,
  schedules: EntrySchedules['ownSchedules'],
  name: OwnSchedule,
): Schedule {
  const schedule = schedules[name];
  if (schedule === undefined) throw new Error(`entry ${entry.key} has no ${name} schedule`);
  return schedule;
}

/** The config's entries as the sources see them, each with its schedules. */
function sourceEntries(config: Config): (EntrySchedules & { entry: SourceEntry })[] {
  return [
    ...config.qstash.map((account) => {
      const entry = entryOf(account, { api: 'qstash', token: account.token }, account.workflowLookbackMs);
      return {
        schedule: account.schedule,
        ownSchedules: account.ownSchedules,
        entry: {
          ...entry,
          account: { ...entry.account, labels: account.labels, exemplars: account.exemplars },
        },
      };
    }),
    ...config.management.map((account) => ({
      schedule: account.schedule,
      ownSchedules: account.ownSchedules,
      entry: {
        ...entryOf(account, { api: 'management', email: account.email, apiKey: account.apiKey }),
        // Without configured IDs, each per-ID source takes its IDs from the account's listing.
        ids: account.databases === undefined ? {} : { database: account.databases },
        databases: {
          ids: account.databases,
          include: account.include.map(anchoredRegex),
          exclude: account.exclude.map(anchoredRegex),
        },
      },
    })),
  ];
}

/** An account's entry, keyed `<api>/<name>`: unique, since names are unique per API. */
function entryOf(
  account: QstashAccount | ManagementAccount,
  credentials: Credentials,
  workflowLookbackMs?: number,
): SourceEntry {
  return {
    key: `${credentials.api}/${account.name}`,
    account: {
      name: account.name,
      baseUrl: account.url,
      credentials,
      ...(workflowLookbackMs !== undefined && { workflowLookbackMs }),
    },
    sources: account.sources,
  };
}
