// Preloaded with `node --import` by test/e2e/serving-thread.test.ts: writes to the file named by
// MAIN_THREAD_SCRIPTS, as the process exits, the URL of every script V8 compiled on the main thread. The
// inspector's scriptParsed events are per isolate, so what the poll worker loads (its own isolate)
// is not among them, and a dynamic import() is, as soon as it runs.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';

const out = process.env.MAIN_THREAD_SCRIPTS;
if (isMainThread && out !== undefined) {
  const urls = new Set();
  const session = new Session();
  session.connect();
  session.on('Debugger.scriptParsed', ({ params }) => {
    if (params.url.startsWith('file:')) urls.add(params.url);
  });
  session.post('Debugger.enable');
  process.on('exit', () => writeFileSync(out, [...urls].join('\n')));
}
