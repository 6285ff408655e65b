import type { UnitChange } from '../metrics/data-series.js';
import { SectionStore, type Rendered } from '../metrics/section-store.js';
import { renderUnit } from '../metrics/unit-bytes.js';
import {
  buildSamples,
  burstWaitSamples,
  healthKey,
  HEALTH_METRICS,
  requestSamples,
  restartSamples,
  unitSamples,
  type HealthChanges,
  type HealthRecord,
  type HealthState,
} from '../poller/health.js';
import type { Section } from '../server/metrics-endpoint.js';
import type { Listed } from '../sources/source.js';
import type { UnitStatus } from '../vocabulary.js';
import type { EntryEvents } from '../sources/event-store.js';
import type { Carried, Publication } from './protocol.js';

// The keys of the health store's entries that are not a unit's; a unit's key never starts so.
const BUILD = '\u0001build';
const REQUESTS = '\u0001requests';
const BURST_WAITS = '\u0001burst-waits';
const RESTARTS = '\u0001restarts';

/**
 * What the poll workers published, on the serving thread: what /metrics, /readyz
 * and the landing page say of the polls. The data section is each unit's bytes as handed over; the
 * health section is rendered here from the records handed over (counts, small), so that it outlives
 * a worker: a death is counted on it (`worker_died` for each poll running at the death, as the last
 * publication and the worker's word since say, `upstash_exporter_poll_worker_restarts_total`), and a restarted worker is handed
 * it back to continue from ({@link carried}). Nothing here is lost when a worker dies.
 */
export class PollStore {
  // Its families come with the worker's first publication (Publication.catalogue).
  readonly #data = new SectionStore([]);
  readonly #health = new SectionStore(HEALTH_METRICS);
  readonly #records = new Map<string, HealthRecord>();
  #requests: ReadonlyMap<string, number> = new Map();
  #burstWaits: HealthState['burstWaits'] = new Map();
  #known: ReadonlyMap<string, Listed> = new Map();
  #events: ReadonlyMap<string, EntryEvents> = new Map();
  #status: Uint8Array | undefined;
  #rows: UnitStatus[] | undefined;
  #ready = false;
  /** Ready once, ready through a restart: the restarted worker's first polls do not make it unready. */
  #wasReady = false;
  #restarts = 0;
  /**
   * The units (health keys) whose poll started or ended after the last publication, which does not
   * say so: the starts it did not count, and whether the last poll still runs.
   */
  readonly #since = new Map<string, { starts: number; running: boolean }>();

  readonly data: Section = {
    version: () => this.#data.version,
    render: (format, keep): Rendered => this.#data.render(format, keep),
  };

  readonly health: Section = {
    version: () => this.#health.version,
    render: (format, keep): Rendered => this.#health.render(format, keep),
  };

  constructor(build: { version: string; revision: string; sharding: { shard: number; total: number } }) {
    this.#health.apply([
      { id: BUILD, unit: renderUnit(buildSamples(build)) },
      { id: RESTARTS, unit: renderUnit(restartSamples(0)) },
      { id: BURST_WAITS, unit: renderUnit(burstWaitSamples(this.#burstWaits)) },
    ]);
  }

  /** Takes a publication: all of it at once, so that no scrape sees half of it. */
  apply(publication: Publication): void {
    if (publication.catalogue !== undefined) this.#data.catalogue(publication.catalogue);
    this.#data.apply(publication.data);
    this.#applyHealth(publication.health);
    this.#ready = publication.ready;
    this.#wasReady ||= publication.ready;
    this.#status = publication.status;
    this.#rows = undefined;
    if (publication.known !== undefined) this.#known = publication.known;
    if (publication.events !== undefined) this.#events = publication.events;
    this.#since.clear();
  }

  /** The worker says a unit's poll started (its health key); the next publication says the rest. */
  pollStarted(key: string): void {
    const since = this.#since.get(key);
    if (since === undefined) this.#since.set(key, { starts: 1, running: true });
    else Object.assign(since, { starts: since.starts + 1, running: true });
  }

  /** The worker says a unit's poll ended (its health key): a death from now on is not that poll's. */
  pollEnded(key: string): void {
    const since = this.#since.get(key);
    if (since === undefined) this.#since.set(key, { starts: 0, running: false });
    else since.running = false;
  }

  /**
   * The worker died: each unit whose poll was running at the death (in flight at the last
   * publication or started after it, and not ended since) counts a failed poll (`worker_died`, so
   * that `upstash_up` is 0 and the failure alerts fire; docs/metrics.md, The exporter itself), once;
   * a poll that ended is never blamed. The starts the publication did not count are counted, and so
   * is the death. Everything else stays as it was: values, health series, counters, last successes.
   */
  workerDied(): void {
    this.#restarts++;
    const changed: UnitChange[] = [{ id: RESTARTS, unit: renderUnit(restartSamples(this.#restarts)) }];
    this.#rows = this.status().map((row) => {
      const key = healthKey(row.labels);
      const since = this.#since.get(key);
      const running = since?.running ?? row.running;
      const starts = since?.starts ?? 0;
      if (!running && starts === 0) return row.running ? { ...row, running: false } : row;
      const record = this.#records.get(key);
      if (record !== undefined) {
        record.polls = (record.polls ?? 0) + starts;
        if (running) {
          record.up = 0;
          record.failures.set('worker_died', (record.failures.get('worker_died') ?? 0) + 1);
        }
        changed.push({ id: key, unit: renderUnit(unitSamples(record)) });
      }
      if (!running) return { ...row, running: false };
      return { ...row, running: false, outcome: 'worker_died', error: 'worker_died' };
    });
    this.#since.clear();
    this.#status = undefined;
    this.#health.apply(changed);
  }

  /** What a restarted worker continues from. */
  carried(): Carried {
    return {
      units: new Map(this.status().map((row) => [row.id, row])),
      health: { units: this.#records, requests: this.#requests, burstWaits: this.#burstWaits },
      held: this.#data.ids(),
      known: this.#known,
      events: this.#events,
    };
  }

  /** Whether every unit has finished its first poll (once ready, ready through reloads and restarts). */
  get ready(): boolean {
    return this.#ready || this.#wasReady;
  }

  /** The deaths of the poll worker so far. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The landing page's rows, as last published. */
  status(): UnitStatus[] {
    if (this.#rows === undefined) {
      this.#rows = this.#status === undefined ? [] : (JSON.parse(utf8(this.#status)) as UnitStatus[]);
    }
    return this.#rows;
  }

  #applyHealth({ units, requests, burstWaits }: HealthChanges): void {
    const changed: UnitChange[] = [];
    for (const [key, record] of units) {
      if (record === undefined) this.#records.delete(key);
      else this.#records.set(key, record);
      changed.push({ id: key, unit: record === undefined ? undefined : renderUnit(unitSamples(record)) });
    }
    if (requests !== undefined) {
      this.#requests = requests;
      changed.push({ id: REQUESTS, unit: renderUnit(requestSamples(requests)) });
    }
    if (burstWaits !== undefined) {
      this.#burstWaits = burstWaits;
      changed.push({ id: BURST_WAITS, unit: renderUnit(burstWaitSamples(burstWaits)) });
    }
    this.#health.apply(changed);
  }
}

/** The text of bytes, read where they are. */
function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
