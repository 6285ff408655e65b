// V8 sizes its heap for throughput: a large account's first poll grows the young generation to 32 MB
// and the old one to several times what stays live, and neither shrinks back. For a daemon that
// idles between polls, memory matters more: these flags keep the exporter holding a large account
// (80,000 series) under 120 MB resident instead of ~170 MB, for some more CPU in garbage collection
// (BENCHMARKS.md). main.ts sets them before the program allocates, so that `npm start`, the bin and
// the image all run with them. `--max-semi-space-size` is read only when the heap is created, too
// early for us; a growth factor of 1 keeps the young generation at its initial size to the same
// effect.
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
