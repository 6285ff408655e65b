import type { WireConfig } from '../config/wire.js';
import type { Publication } from './polling.js';

// What the serving thread and the poll worker say to each other (polling/thread.ts and polling/worker.ts).

/** What the poll worker is started with. */
export interface WorkerInit {
  readonly config: WireConfig;
  readonly version: string;
  /** The serving thread's log level (a reload's configuration sets both). */
  readonly logLevel: string;
}

/** From the serving thread to the poll worker; `id` pairs a request with its {@link Done}. */
export type ToWorker =
  | { readonly type: 'start' }
  | { readonly type: 'reload'; readonly id: number; readonly config: WireConfig }
  | { readonly type: 'stop'; readonly id: number }
  | { readonly type: 'stats'; readonly id: number };

/** What the poll worker's thread holds (its own heap and handles, which the serving thread cannot see). */
export interface WorkerStats {
  /** The worker's V8 heap in use, after a full collection when the process runs with --expose-gc. */
  readonly heapUsedBytes: number;
  readonly sockets: number;
  readonly timers: number;
  readonly handles: number;
}

/** A request done: `units` polled after a reload, or why it failed. */
export interface Done {
  readonly type: 'done';
  readonly id: number;
  readonly units?: number;
  readonly error?: string;
  readonly stats?: WorkerStats;
}

/** From the poll worker to the serving thread. */
export type FromWorker =
  /** One log line, formatted and redacted by the worker's logger, for the process's destination. */
  | { readonly type: 'log'; readonly line: string }
  | { readonly type: 'publish'; readonly publication: Publication }
  | Done;
