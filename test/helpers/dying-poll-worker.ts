import { existsSync, rmSync } from 'node:fs';
import { parentPort, type Transferable } from 'node:worker_threads';

// The real poll worker with a death injected, for the tests of what a death does
// (test/worker/thread): POLL_WORKER_DEATH is `exit` (process.exit(7) inside the worker), `throw` (an
// uncaught error) or `oom` (allocates until the heap limit kills it: give the app pollWorkerLimits),
// some time after it started (POLL_WORKER_DEATH_AFTER_MS), or once the file POLL_WORKER_DEATH_WHEN
// names exists (the test says when; the worker removes it as it dies, so that one restarted with the
// same variables waits for the test's next word); `exit-at-start`: process.exit(7) before
// the worker loads, so before it publishes anything; `exit-on-reload`: process.exit(7) as soon as a
// reload reaches it, so that the reload is pending at the death. A worker copies the environment when
// it is created, so a test that clears the variable gets a healthy worker at the restart.
// `after-poll`: once the file POLL_WORKER_DEATH_WHEN names exists, an uncaught error just after the
// next poll of the source POLL_WORKER_DEATH_SOURCE succeeds (its `poll succeeded` line, so at level
// debug), after everything the worker says of that poll and before its next publication.
const death = process.env.POLL_WORKER_DEATH;
if (death === 'exit-at-start') process.exit(7);
if (death === 'after-poll') dieAfterPoll(process.env.POLL_WORKER_DEATH_SOURCE ?? '');
await import('../../src/worker/worker.js');

const afterMs = Number(process.env.POLL_WORKER_DEATH_AFTER_MS ?? 1500);
const when = process.env.POLL_WORKER_DEATH_WHEN;
/** Runs `die` after afterMs, or once the file `when` exists. */
const deathAt = (die: () => void): void => {
  if (when === undefined) {
    setTimeout(die, afterMs);
    return;
  }
  const check = setInterval(() => {
    if (!existsSync(when)) return;
    clearInterval(check);
    rmSync(when, { force: true });
    die();
  }, 50);
};
if (death === 'exit' || death === 'throw' || death === 'oom') {
  deathAt(() => {
    if (death === 'exit') process.exit(7);
    if (death === 'throw') throw new Error('injected fault: the poll worker dies');
    const hog: number[][] = [];
    const grow = (): void => {
      for (let i = 0; i < 50; i++) hog.push(Array.from({ length: 100_000 }, (_, n) => n + hog.length));
      setImmediate(grow);
    };
    grow();
  });
}
if (death === 'exit-on-reload') {
  // After the worker's own listener, which has started the reload by now.
  parentPort?.on('message', (message: { type: string }) => {
    if (message.type === 'reload') process.exit(7);
  });
}

/**
 * Wraps the worker's port: the `poll succeeded` line of `source` posted while the file exists (removed
 * then) queues the death as a microtask, which runs once the poll's own code has run to its end.
 */
function dieAfterPoll(source: string): void {
  const port = parentPort;
  const file = process.env.POLL_WORKER_DEATH_WHEN;
  if (port === null || file === undefined) return;
  const post = port.postMessage.bind(port);
  port.postMessage = (message: unknown, transfer?: readonly Transferable[]) => {
    post(message, transfer);
    const { type, line } = message as { type?: string; line?: string };
    if (type !== 'log' || line === undefined || !existsSync(file)) return;
    const logged = JSON.parse(line) as { msg?: string; source?: string };
    if (logged.msg !== 'poll succeeded' || logged.source !== source) return;
    rmSync(file, { force: true });
    queueMicrotask(() => {
      throw new Error('injected fault: the poll worker dies just after a poll ended');
    });
  };
}
