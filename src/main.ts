#!/usr/bin/env node
import { applyHeapFlags } from './heap-flags.js';

// The process entry. Signal listeners come first, before any module of ours but the dependency-free
// heap-flags.ts is even loaded: a SIGHUP or SIGTERM while the program starts would otherwise take
// Node's default action (exit 129 or 143).
// SIGTERM and SIGINT ask for a clean shutdown (exit 0) whenever they come; a SIGHUP before the
// exporter runs has nothing to reload, as the configuration is about to be read anyway.

/** The exporter has this long to stop after SIGTERM or SIGINT; a stuck shutdown is worse than an abrupt one. */
const SHUTDOWN_GRACE_MS = 5_000;
const EXIT_FATAL = 1;

// SIGHUP's listener comes last: once it is caught, so are the others (what the tests wait for).
const shutdown = new Promise<NodeJS.Signals>((resolve) => {
  process.once('SIGTERM', () => resolve('SIGTERM'));
  process.once('SIGINT', () => resolve('SIGINT'));
});
let reload: (() => void) | undefined;
process.on('SIGHUP', () => reload?.());
// Until the program runs there is nothing to stop: a SIGTERM while its modules load (a second or more on
// a busy machine) exits 0 at once instead of loading, starting and then stopping everything.
let running = false;
void shutdown.then(() => {
  if (!running) process.exit(0);
  setTimeout(() => {
    console.error('upstash-exporter: shutdown took too long; exiting');
    process.exit(EXIT_FATAL);
  }, SHUTDOWN_GRACE_MS).unref();
});

// The program's V8 heap settings (see heap-flags.ts), before the rest of it loads and allocates.
applyHeapFlags();

try {
  const { main } = await import('./cli.js');
  running = true;
  process.exitCode = await main(process.argv.slice(2), {
    shutdown,
    onHangup: (handler) => {
      reload = handler;
    },
  });
} catch (error) {
  console.error(`upstash-exporter: fatal: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = EXIT_FATAL;
}
