import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { DestinationStream, Logger } from 'pino';
import { toWire } from '../config/wire.js';
import type { Config } from '../config/types.js';
import type { FamilyBlocks } from '../metrics/data-series.js';
import { FamilyTable, type Rendered } from '../metrics/family-table.js';
import { heapFlags } from '../heap-flags.js';
import { logDestination } from '../logger.js';
import type { Done, FromWorker, ToWorker, WorkerInit, WorkerStats } from './protocol.js';
import type { Publication, SectionChanges } from './polling.js';
import type { SourceRow } from '../server/landing-page.js';
import type { PolledSections, Published, Publisher, Section } from '../server/scrape-cache.js';

/** What the poll thread needs besides the configuration. */
export interface PollThreadOptions {
  readonly logger: Logger;
  readonly version: string;
  /** The worker's entry; by default the built polling/worker.js beside this module. */
  readonly entry?: URL;
}

/** A dead worker is restarted after this long, doubled for each death in a row, up to the maximum. */
const RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that lived this long was not crashing in a loop: the next restart is quick again. */
const HEALTHY_AFTER_MS = 60_000;
/** How long a stopping worker has to stop its polls and close its sockets before it is terminated. */
const STOP_GRACE_MS = 3_000;

/**
 * The serving thread's side of the poll worker (polling/worker.ts): starts it, sends it reloads and the
 * stop, writes its log lines to this process's log destination, and keeps what it last published,
 * which the scrape cache serves ({@link PolledSections}) and the landing page and /readyz read. A
 * worker that dies (an uncaught error, out of memory, process.exit inside it) is logged as an error
 * and restarted with the running configuration; meanwhile /metrics keeps answering what it last
 * published.
 */
export class PollThread implements PolledSections, Publisher {
  readonly #options: PollThreadOptions;
  readonly #destination: DestinationStream;
  #config: Config;
  #worker: Worker | undefined;
  /** Which worker this is (restarts count): part of the sections' versions. */
  #generation = 0;
  #started = false;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #deathsInARow = 0;
  #spawnedAt = 0;
  #nextId = 0;
  readonly #pending = new Map<number, { resolve: (done: Done) => void; reject: (error: Error) => void }>();

  #data: FamilyTable | undefined;
  #health: FamilyTable | undefined;
  #ready = false;
  /** Ready once, ready through a restart: the restarted poller's first polls do not make it unready. */
  #readyBeforeRestart = false;
  #status: Buffer | undefined;
  #firstPublication: (() => void) | undefined;
  #onPublished: ((publication: Published) => void) | undefined;

  readonly data: Section = {
    version: () => `${this.#generation}/${this.#data?.version ?? 0}`,
    render: (format, keep): Rendered => this.#data?.render(format, keep) ?? { chunks: [], crc: 0 },
  };

  readonly health: Section = {
    version: () => `${this.#generation}/${this.#health?.version ?? 0}`,
    render: (format, keep): Rendered => this.#health?.render(format, keep) ?? { chunks: [], crc: 0 },
  };

  constructor(config: Config, options: PollThreadOptions) {
    this.#config = config;
    this.#options = options;
    this.#destination = logDestination(options.logger);
  }

  /**
   * Starts the worker, which polls every unit now, then on its schedule; resolves once a worker has
   * published (its health series declared: /metrics says what is polled from the first scrape on),
   * the one started here or, should it die first, one restarted after it; or once {@link stop} was
   * called.
   */
  async start(): Promise<void> {
    if (this.#started || this.#stopping) return;
    this.#started = true;
    // Until a worker has published, whichever: one that dies first is restarted, and /metrics would
    // say nothing of the units meanwhile.
    await new Promise<void>((resolve) => {
      this.#firstPublication = resolve;
      this.#spawn();
    });
  }

  /** Applies a new configuration in the worker; resolves with the units now polled. */
  async reload(config: Config): Promise<number> {
    this.#config = config;
    if (this.#worker === undefined) return 0;
    const done = await this.#request({ type: 'reload', id: this.#nextId++, config: toWire(config) });
    if (done.error !== undefined) throw new Error(done.error);
    return done.units ?? 0;
  }

  /** Stops the polls (aborting those in flight), closes the worker's sockets and ends it. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    this.#firstPublication?.();
    const worker = this.#worker;
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#request({ type: 'stop', id: this.#nextId++ }).catch(() => undefined),
      exited,
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    await worker.terminate();
  }

  /**
   * Calls `listener` each time a publication has been taken (the sections have moved); `readied`
   * when it made the exporter ready (its first polls are all over).
   */
  onPublished(listener: (publication: Published) => void): void {
    this.#onPublished = listener;
  }

  /** What the worker's thread holds now; undefined while no worker runs. */
  async stats(): Promise<WorkerStats | undefined> {
    if (this.#worker === undefined) return undefined;
    const done = await this.#request({ type: 'stats', id: this.#nextId++ });
    return done.stats;
  }

  /** True once every unit has finished its first poll (see Poller.ready); and through a restart. */
  get ready(): boolean {
    return this.#ready || this.#readyBeforeRestart;
  }

  /** The landing page's rows, as the worker last published them. */
  status(): SourceRow[] {
    if (this.#status === undefined) return [];
    return JSON.parse(this.#status.toString('utf8')) as SourceRow[];
  }

  #spawn(): Worker {
    const entry = this.#options.entry ?? new URL('./worker.js', import.meta.url);
    const init: WorkerInit = {
      config: toWire(this.#config),
      version: this.#options.version,
      logLevel: this.#options.logger.level,
    };
    const worker = new Worker(entry, { workerData: init });
    this.#worker = worker;
    this.#generation++;
    this.#spawnedAt = Date.now();
    let failure: unknown;
    // Creating the worker's isolate reset one of the program's heap settings for the whole process
    // (see polling/worker.ts, which applies them again first thing); this thread applies them again as
    // soon as it hears the worker runs, so that its own young generation does not grow meanwhile.
    worker.once('online', () => {
      for (const flag of heapFlags(process.execArgv, process.env.NODE_OPTIONS)) setFlagsFromString(flag);
    });
    worker.on('message', (message: FromWorker) => this.#receive(message));
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', (code) => {
      this.#worker = undefined;
      for (const { reject } of this.#pending.values()) reject(new Error('the poll worker exited'));
      this.#pending.clear();
      if (this.#stopping) return;
      this.#readyBeforeRestart ||= this.#ready;
      this.#ready = false;
      if (Date.now() - this.#spawnedAt > HEALTHY_AFTER_MS) this.#deathsInARow = 0;
      const delay = Math.min(RESTART_DELAY_MS * 2 ** this.#deathsInARow, MAX_RESTART_DELAY_MS);
      this.#deathsInARow++;
      this.#options.logger.error(
        { err: failure, code, restartInMs: delay },
        'the poll worker died; restarting it, and polling with it',
      );
      this.#restartTimer = setTimeout(() => this.#spawn(), delay);
    });
    worker.postMessage({ type: 'start' } satisfies ToWorker);
    return worker;
  }

  async #request(message: Extract<ToWorker, { id: number }>): Promise<Done> {
    const worker = this.#worker;
    if (worker === undefined) throw new Error('the poll worker is not running');
    return new Promise<Done>((resolve, reject) => {
      this.#pending.set(message.id, { resolve, reject });
      worker.postMessage(message satisfies ToWorker);
    });
  }

  #receive(message: FromWorker): void {
    switch (message.type) {
      case 'log':
        this.#destination.write(message.line);
        return;
      case 'publish':
        this.#take(message.publication);
        return;
      case 'done':
        this.#pending.get(message.id)?.resolve(message);
        this.#pending.delete(message.id);
    }
  }

  /** Takes a publication; its buffers arrive as plain Uint8Arrays over memory that is now ours. */
  #take(publication: Publication): void {
    const wasReady = this.ready;
    this.#data = applied(this.#data, publication.data, publication.whole);
    this.#health = applied(this.#health, publication.health, publication.whole);
    this.#ready = publication.ready;
    this.#firstPublication?.();
    this.#firstPublication = undefined;
    this.#status = asBuffer(publication.status);
    this.#onPublished?.({ readied: !wasReady && this.ready });
  }
}

/** `table` (a new one when the section comes whole) with the section's changed families. */
function applied(table: FamilyTable | undefined, section: SectionChanges, whole: boolean): FamilyTable {
  const next =
    section.catalogue === undefined && table !== undefined ? table : new FamilyTable(section.catalogue ?? []);
  const families: FamilyBlocks[] = section.families.map((family) => ({
    ...family,
    changed: family.changed.map((block) => ({ ...block, lines: asBuffer(block.lines) })),
  }));
  next.apply(families, whole);
  return next;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
