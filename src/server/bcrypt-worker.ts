import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Checks waiting or running at once; a check beyond them is turned away ('busy'), not queued. */
export const MAX_PENDING_CHECKS = 8;
/** An idle worker thread is stopped after this long, and started again on the next check. */
const IDLE_MS = 30_000;

// The worker's code, evaluated rather than loaded from a file, so that it runs the same from dist/
// and under the tests' TypeScript loader. It answers one job at a time: bcrypt is pure CPU.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
try {
  // Linux: setpriority on a thread id renices that thread alone.
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(tid, 19);
} catch {}
parentPort.on('message', (job) => {
  try {
    const result =
      job.op === 'compare' ? bcrypt.compareSync(job.password, job.hash) : bcrypt.hashSync(job.password, job.cost);
    parentPort.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message) });
  }
});
`;

type Job = { op: 'compare'; password: string; hash: string } | { op: 'hash'; password: string; cost: number };

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * bcrypt off the event loop. bcryptjs is pure JavaScript: a check at cost 10 is ~70-100 ms of CPU,
 * which on the main thread, for every wrong password an attacker sends, delays every scrape. Here it
 * runs in one worker thread (started on first use, stopped when idle), so the event loop only passes
 * messages; a flood of wrong passwords takes one core at most, and at most {@link MAX_PENDING_CHECKS}
 * wait their turn.
 */
export class BcryptWorker {
  readonly #bcryptjs = createRequire(import.meta.url).resolve('bcryptjs');
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #nextId = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  /** Whether `password` matches `hash`; 'busy' when {@link MAX_PENDING_CHECKS} checks are pending. */
  async compare(password: string, hash: string): Promise<boolean | 'busy'> {
    if (this.#pending.size >= MAX_PENDING_CHECKS) return 'busy';
    return (await this.#run({ op: 'compare', password, hash })) === true;
  }

  /** A bcrypt hash of `password` at `cost` (not counted against the pending checks). */
  async hash(password: string, cost: number): Promise<string> {
    return String(await this.#run({ op: 'hash', password, cost }));
  }

  async #run(job: Job): Promise<unknown> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, ...job });
    });
  }

  #start(): Worker {
    clearTimeout(this.#idleTimer);
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bcryptjs: this.#bcryptjs },
      // bcrypt needs next to no memory; a worker that did would be a bug, not a reason to grow.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
    });
    worker.on('message', (message: { id: number; result?: unknown; error?: string }) => {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error === undefined) pending?.resolve(message.result);
      else pending?.reject(new Error(`bcrypt failed: ${message.error}`));
      if (this.#pending.size === 0) this.#idle(worker);
    });
    const fail = (error: Error): void => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      fail(new Error(`bcrypt worker exited with code ${code}`));
    });
    this.#worker = worker;
    return worker;
  }

  /** Lets the process exit despite the worker, and stops it if it stays idle. */
  #idle(worker: Worker): void {
    worker.unref();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#worker === worker && this.#pending.size === 0) {
        this.#worker = undefined;
        void worker.terminate();
      }
    }, IDLE_MS);
    this.#idleTimer.unref();
  }
}
