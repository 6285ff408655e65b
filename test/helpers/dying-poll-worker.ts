// The real poll worker with a death injected, for the test of what a death does (test/polling/thread):
// POLL_WORKER_DEATH (`exit`: process.exit(7) inside the worker; `throw`: an uncaught error), some
// time after it started; `exit-at-start`: process.exit(7) before the worker loads, so before it
// publishes anything. A worker copies the environment when it is created, so a test that clears the
// variable gets a healthy worker at the restart.
const death = process.env.POLL_WORKER_DEATH;
if (death === 'exit-at-start') process.exit(7);
await import('../../src/polling/worker.js');

const afterMs = Number(process.env.POLL_WORKER_DEATH_AFTER_MS ?? 1500);
if (death === 'exit' || death === 'throw') {
  setTimeout(() => {
    if (death === 'exit') process.exit(7);
    throw new Error('injected fault: the poll worker dies');
  }, afterMs);
}
