import { setFlagsFromString } from 'node:v8';

// V8 sizes its heap for throughput: a large account's first poll grows the young generation to 32 MB
// and the old one to several times what stays live, and neither shrinks back. For a daemon that
// idles between polls, memory matters more: with these flags the benchmark's large state rests at
// ~110 MB resident instead of ~170 MB under V8's own sizing, for more CPU in garbage collection
// (BENCHMARKS.md, README "Memory"). main.ts applies them before the program's modules load (and the
// poll worker again, as creating its thread resets one of them: polling/worker.ts), so that
// `npm start`, the bin and the image all run with them.
//
// The young generation: `--max-semi-space-size` says it directly but is read only when the heap is
// created, before any code of ours runs. The growth factor is read each time V8 considers growing it,
// and 1 keeps it at its initial size. On the command line V8 raises that factor to its minimum of 2
// (a value implication); set at run time, as here, it is taken as given (Node 20, V8 11.3).
// test/e2e/heap-flags.test.ts checks the effect on the Node the tests run under; a V8 that re-applied
// the minimum would leave the young generation to grow, the only thing lost.
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
