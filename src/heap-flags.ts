import { setFlagsFromString } from 'node:v8';

// V8 sizes its heap for throughput and never shrinks it back; for a daemon that idles between polls,
// memory matters more (docs/architecture.md, Heap settings, has the figures). main.ts sets these before
// the program's modules load, and the poll worker again, as creating its thread resets one of them
// (worker/worker.ts), so that `npm start`, the bin and the image all run with them.
//
// `--max-semi-space-size` is read only when the heap is created, before our code runs; the growth
// factor is read whenever V8 considers growing, and 1 keeps the young generation at its initial size.
// Set at run time it is taken as given, where the command line would raise it to 2
// (test/e2e/heap-flags.test.ts checks the effect on the Node the tests run under).
const HEAP_FLAGS: readonly { readonly flag: string; readonly unlessGiven: readonly string[] }[] = [
  { flag: '--optimize-for-size', unlessGiven: ['--optimize-for-size', '--no-optimize-for-size'] },
  {
    flag: '--semi-space-growth-factor=1',
    unlessGiven: ['--semi-space-growth-factor', '--max-semi-space-size', '--min-semi-space-size'],
  },
];

/**
 * The V8 flags the program sets for itself, given the Node options it was started with (`execArgv`
 * and `NODE_OPTIONS`): a user's own flag on the same setting wins. V8 spells `_` and `-` alike.
 */
export function heapFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set(
    [...execArgv, ...nodeOptions.split(/\s+/)].map((arg) => (arg.split('=')[0] ?? '').replace(/_/g, '-')),
  );
  return HEAP_FLAGS.filter(({ unlessGiven }) => !unlessGiven.some((name) => given.has(name))).map(
    ({ flag }) => flag,
  );
}

/**
 * Sets {@link heapFlags} for this process, from its own Node options: at start, and again once a thread
 * has started (creating one resets a setting).
 */
export function applyHeapFlags(): void {
  for (const flag of heapFlags(process.execArgv, process.env.NODE_OPTIONS)) setFlagsFromString(flag);
}
