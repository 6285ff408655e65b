import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../logger.js';
import { createPolling } from './polling.js';
import {
  fromWire,
  transferList,
  type FromWorker,
  type ToWorker,
  type WorkerInit,
  type WorkerStats,
} from './protocol.js';

// The poll worker, composition only (as app.ts is the serving thread's): polling, parsing,
// validation and rendering to bytes run here, on a thread of their own, so that a scrape never
// queues behind a poll and a poll never waits for scrapes. worker/thread.ts starts it (worker/worker.ts
// is its entry), and restarts it if it dies. What it renders is handed over as publications whose
// buffers are transferred (moved, not copied); its log lines go to the serving thread, which writes
// them where its own go.

/** How often the serving thread is handed what moved: the most a scrape lags a poll's landing. */
const PUBLISH_EVERY_MS = 1000;

const port = parentPort;
if (port === null) throw new Error('the poll worker runs as a worker thread (see worker/thread.ts)');
const post = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
const init = workerData as WorkerInit;
const config = fromWire(init.config);
// The same logger as the serving thread's, redaction included, at the level of the configuration it
// runs (the serving thread's is made from the same, and a reload sets both); the lines leave formatted.
const logger = createLogger(config.logLevel, { write: (line: string) => post({ type: 'log', line }) });
const polling = createPolling(config, {
  logger,
  version: init.version,
  ...(init.carried !== undefined && { carried: init.carried }),
  onPoll: (unit, running) => post(running ? { type: 'polling', unit } : { type: 'polled', unit }),
});

/** Hands over what moved since the last publication; the first is always made (it says we run). */
const publish = (): void => {
  if (!polling.moved()) return;
  const publication = polling.take();
  post({ type: 'publish', publication }, transferList(publication));
};
const publisher = setInterval(() => {
  try {
    publish();
  } catch (error) {
    logger.error({ err: error }, 'publishing the polled state failed');
  }
}, PUBLISH_EVERY_MS);

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'start':
      polling.start();
      return;
    case 'reload':
      polling.reload(fromWire(message.config)).then(
        () => {
          // What the reload changed goes with the answer, so that the serving thread takes both at once.
          const publication = polling.take();
          post({ type: 'reloaded', id: message.id, publication }, transferList(publication));
        },
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          post({ type: 'reload-failed', id: message.id, error: reason });
        },
      );
      return;
    case 'stop':
      clearInterval(publisher);
      void polling.stop().finally(() => post({ type: 'stopped', id: message.id }));
      return;
    case 'stats':
      post({ type: 'stats', id: message.id, stats: workerStats() });
  }
});
publish();

/** This thread's heap (after a full collection, given --expose-gc) and handles. */
function workerStats(): WorkerStats {
  (globalThis as { gc?: () => void }).gc?.();
  const resources = process.getActiveResourcesInfo();
  const count = (type: string): number => resources.filter((resource) => resource === type).length;
  return {
    heapUsedBytes: process.memoryUsage().heapUsed,
    sockets: count('TCPSocketWrap') + count('TCPWRAP'),
    timers: count('Timeout'),
    handles: resources.length,
  };
}
