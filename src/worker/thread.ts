import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { DestinationStream, Logger } from 'pino';
import type { Config } from '../config/types.js';
import { applyHeapFlags } from '../heap-flags.js';
import { logDestination } from '../logger.js';
import type { Readiness, SourceRow } from '../server/landing-page.js';
import type { PolledSections, Section, SectionsMoved } from '../server/metrics-endpoint.js';
import {
  toWire,
  type FromWorker,
  type Publication,
  type Replies,
  type Reply,
  type Request,
  type ToWorker,
  type WorkerInit,
  type WorkerStats,
} from './protocol.js';
import { PollStore } from './store.js';

/** What the poll thread needs besides the configuration. */
export interface PollThreadOptions {
  readonly logger: Logger;
  readonly version: string;
  /** The git commit the program was built from, as src/version.ts reads it. */
  readonly revision: string;
  /** The worker's entry; by default the built worker.js beside this module. */
  readonly entry?: URL;
  /** The worker's heap limits (a memory-limited container's); V8's defaults otherwise. */
  readonly resourceLimits?: ResourceLimits;
}

/** A dead worker is restarted after this long, doubled for each death in a row, up to the maximum. */
const RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that lived this long was not crashing in a loop: the next restart is quick again. */
const HEALTHY_AFTER_MS = 60_000;
/** How long a stopping worker has to stop its polls and close its sockets before it is terminated. */
const STOP_GRACE_MS = 3_000;

/** A request waiting for its reply. */
interface Pending {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
}

/** A reload (or the start) waiting for a worker to publish with its configuration. */
interface Awaiting {
  /** Runs just before that publication is taken (a reload's own settings: metrics.allow and deny). */
  readonly apply: () => void;
  readonly resolve: (units: number) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The serving thread's side of the poll worker (worker.ts): starts it, sends it reloads and the stop,
 * writes its log lines to this process's log destination, and takes its publications into the
 * {@link PollStore}, which the scrape cache serves ({@link PolledSections}) and the landing page and
 * /readyz read. A worker that dies (an uncaught error, out of memory, process.exit inside it) is
 * logged as an error, counted, and restarted with the running configuration and the store's state
 * to continue from; meanwhile /metrics keeps answering what was published, and /readyz says the
 * worker is down. A reload is answered once a worker runs it: by the worker that was asked, or, if it
 * died (or was down), by the first publication of the one restarted with it.
 */
export class PollThread implements PolledSections, SectionsMoved {
  readonly #options: PollThreadOptions;
  readonly #destination: DestinationStream;
  readonly #store: PollStore;
  #config: Config;
  #worker: Worker | undefined;
  /** The worker published since it was started: it runs. */
  #live = false;
  #started = false;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #deathsInARow = 0;
  #spawnedAt = 0;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();
  #awaiting: Awaiting[] = [];
  #onMoved: ((readied: boolean) => void) | undefined;

  readonly data: Section;
  readonly health: Section;

  constructor(config: Config, options: PollThreadOptions) {
    this.#config = config;
    this.#options = options;
    this.#destination = logDestination(options.logger);
    this.#store = new PollStore({
      version: options.version,
      revision: options.revision,
      sharding: config.sharding,
    });
    this.data = this.#store.data;
    this.health = this.#store.health;
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
    await new Promise<void>((resolve) => {
      this.#awaiting.push({ apply: () => undefined, resolve: () => resolve(), reject: () => resolve() });
      this.#spawn();
    });
  }

  /**
   * Applies a new configuration in the worker; resolves with the units now polled once it runs there,
   * `apply` having run just before its first publication was taken (with nothing in between).
   */
  async reload(config: Config, apply: () => void = () => undefined): Promise<number> {
    const worker = this.#worker;
    if (worker === undefined) {
      // Down (waiting for its restart): the worker started next runs this configuration.
      this.#config = config;
      return this.#nextPublication(apply);
    }
    const id = this.#nextId++;
    const previous = this.#config;
    this.#config = config;
    const reply = await this.#request<'reload'>(worker, { type: 'reload', id, config: toWire(config) });
    if (reply === undefined) return this.#nextPublication(apply);
    if (reply.type === 'reload-failed') {
      if (this.#config === config) this.#config = previous;
      throw new Error(reply.error);
    }
    apply();
    this.#take(reply.publication);
    return reply.publication.polled;
  }

  /** Stops the polls (aborting those in flight), closes the worker's sockets and ends it. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    for (const awaiting of this.#awaiting) awaiting.reject(new Error('the exporter is stopping'));
    this.#awaiting = [];
    const worker = this.#worker;
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#request<'stop'>(worker, { type: 'stop', id: this.#nextId++ }).catch(() => undefined),
      exited,
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    await worker.terminate();
  }

  /** Calls `listener` each time the sections moved; `readied` when that made the exporter ready. */
  onMoved(listener: (readied: boolean) => void): void {
    this.#onMoved = listener;
  }

  /** What the worker's thread holds now; undefined while no worker runs. */
  async stats(): Promise<WorkerStats | undefined> {
    const worker = this.#worker;
    if (worker === undefined) return undefined;
    return (await this.#request<'stats'>(worker, { type: 'stats', id: this.#nextId++ }))?.stats;
  }

  /** True once every unit has finished its first poll (and through reloads), while a worker runs. */
  get ready(): boolean {
    return this.readiness().ready;
  }

  /** Whether the exporter is ready, and why not, in words for /readyz and the landing page. */
  readiness(): Readiness {
    if (!this.#live) {
      return this.#store.restarts > 0
        ? { ready: false, why: 'the poll worker died and is restarting' }
        : { ready: false, why: 'waiting for the first poll of every source' };
    }
    if (!this.#store.ready) return { ready: false, why: 'waiting for the first poll of every source' };
    return { ready: true };
  }

  /** The landing page's rows, as the worker last published them. */
  status(): SourceRow[] {
    return this.#store.status();
  }

  #spawn(): void {
    const entry = this.#options.entry ?? new URL('./worker.js', import.meta.url);
    const init: WorkerInit = {
      config: toWire(this.#config),
      version: this.#options.version,
      carried: this.#store.restarts > 0 ? this.#store.carried() : undefined,
    };
    const worker = new Worker(entry, {
      workerData: init,
      ...(this.#options.resourceLimits !== undefined && { resourceLimits: this.#options.resourceLimits }),
    });
    this.#worker = worker;
    this.#live = false;
    this.#spawnedAt = Date.now();
    let failure: unknown;
    // Creating the worker's isolate reset one of the program's heap settings for the whole process
    // (see worker.ts, which applies them again first thing); this thread applies them again as soon
    // as it hears the worker runs, so that its own young generation does not grow meanwhile.
    worker.once('online', applyHeapFlags);
    worker.on('message', (message: FromWorker) => this.#receive(message));
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', (code) => this.#exited(worker, code, failure));
    worker.postMessage({ type: 'start' } satisfies ToWorker);
  }

  #exited(worker: Worker, code: number, failure: unknown): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    this.#live = false;
    // A reload in flight is answered by the restarted worker, which runs its configuration.
    for (const pending of this.#pending.values()) pending.reject(new WorkerExited());
    this.#pending.clear();
    if (this.#stopping) return;
    this.#store.workerDied();
    if (Date.now() - this.#spawnedAt > HEALTHY_AFTER_MS) this.#deathsInARow = 0;
    const delay = Math.min(RESTART_DELAY_MS * 2 ** this.#deathsInARow, MAX_RESTART_DELAY_MS);
    this.#deathsInARow++;
    this.#options.logger.error(
      { err: failure, code, restartInMs: delay },
      'the poll worker died; restarting it, and polling with it',
    );
    this.#onMoved?.(false);
    this.#restartTimer = setTimeout(() => this.#spawn(), delay);
  }

  /** Resolves with the units polled once a worker (started later, with the running configuration) publishes. */
  async #nextPublication(apply: () => void): Promise<number> {
    if (this.#stopping) throw new Error('the exporter is stopping');
    return new Promise<number>((resolve, reject) => this.#awaiting.push({ apply, resolve, reject }));
  }

  /** Sends a request; resolves with its reply, or undefined when the worker died before replying. */
  async #request<T extends keyof Replies>(
    worker: Worker,
    message: Extract<Request, { type: T }>,
  ): Promise<Replies[T] | undefined> {
    return new Promise<Replies[T] | undefined>((resolve, reject) => {
      this.#pending.set(message.id, {
        resolve: (reply) => resolve(reply as Replies[T]),
        reject: (error) => (error instanceof WorkerExited ? resolve(undefined) : reject(error)),
      });
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
      case 'polling':
        this.#store.pollStarted(message.unit);
        return;
      case 'polled':
        this.#store.pollEnded(message.unit);
        return;
      default: {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        pending?.resolve(message);
      }
    }
  }

  /** Takes a publication; the first of a worker answers those waiting for one. */
  #take(publication: Publication): void {
    const wasReady = this.ready;
    const awaiting = this.#live ? [] : this.#awaiting;
    if (!this.#live) this.#awaiting = [];
    for (const { apply } of awaiting) apply();
    this.#store.apply(publication);
    this.#live = true;
    for (const { resolve } of awaiting) resolve(publication.polled);
    this.#onMoved?.(!wasReady && this.ready);
  }
}

/** The worker exited before it replied. */
class WorkerExited extends Error {
  constructor() {
    super('the poll worker exited');
    this.name = 'WorkerExited';
  }
}
