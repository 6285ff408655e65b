#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// The process entry. Signal listeners come first, before any module of ours is even loaded: a SIGHUP
// or SIGTERM while the program starts would otherwise take Node's default action (exit 129 or 143).
// SIGTERM and SIGINT ask for a clean shutdown (exit 0) whenever they come; a SIGHUP before the
// exporter runs has nothing to reload, as the configuration is about to be read anyway.

/** The exporter has this long to stop after SIGTERM or SIGINT; a stuck shutdown is worse than an abrupt one. */
const SHUTDOWN_GRACE_MS = 5_000;
const EXIT_FATAL = 1;

let reload: (() => void) | undefined;
process.on('SIGHUP', () => reload?.());
const shutdown = new Promise<NodeJS.Signals>((resolve) => {
  process.once('SIGTERM', () => resolve('SIGTERM'));
  process.once('SIGINT', () => resolve('SIGINT'));
});
void shutdown.then(() => {
  setTimeout(() => {
    console.error('upstash-exporter: shutdown took too long; exiting');
    process.exit(EXIT_FATAL);
  }, SHUTDOWN_GRACE_MS).unref();
});

// V8 sizes its heap for throughput: a large account's first poll grows the young generation to 32 MB
// and the old one to several times what stays live, and neither shrinks back. For a daemon that
// idles between polls, memory matters more: these flags keep the exporter holding a large account
// (80,000 series) under 120 MB resident instead of ~170 MB, for some more CPU in garbage collection
// (BENCHMARKS.md). They are set here, before the program allocates, so that `npm start`, the bin and
// the image all run with them. `--max-semi-space-size` is read only when the heap is created, too
// early for us; a growth factor of 1 keeps the young generation at its initial size to the same
// effect. A user's own flag (command line or NODE_OPTIONS) on the same setting wins.
const HEAP_FLAGS: readonly { flag: string; unlessGiven: readonly string[] }[] = [
  { flag: '--optimize-for-size', unlessGiven: ['--optimize-for-size', '--no-optimize-for-size'] },
  {
    flag: '--semi-space-growth-factor=1',
    unlessGiven: ['--semi-space-growth-factor', '--max-semi-space-size', '--min-semi-space-size'],
  },
];
const given = new Set(
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((arg) =>
    (arg.split('=')[0] ?? '').replace(/_/g, '-'),
  ),
);
for (const { flag, unlessGiven } of HEAP_FLAGS) {
  if (!unlessGiven.some((name) => given.has(name))) setFlagsFromString(flag);
}

try {
  const { main } = await import('./cli.js');
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
