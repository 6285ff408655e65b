import { describe, expect, it } from 'vitest';
import { importsOf, loaded, SRC } from '../helpers/imports.js';

// Every module the serving thread loads is compiled and kept in its own V8 heap, beside the poll
// worker's copy: the Upstash client (undici, its WebAssembly parser), every source and every response
// schema cost the serving thread ~6-10 MB of heap pages for code it never runs (BENCHMARKS.md, "Issue
// 27, third part"). So the serving thread learns the data section's families from the worker's first
// publication (Publication.catalogue) instead of importing the sources, and reads only the table of
// sources (source-registry.ts) for the names the config accepts. This walks the static imports of the
// program's entries as Node loads them (an `import type` is erased; an import() loads when it runs).

describe('the serving thread', () => {
  const { files, packages } = loaded(['main.ts', 'cli.ts']);
  const relative = [...files].map((file) => file.slice(SRC.length + 1)).sort();

  it('loads the server, the metrics endpoint and the poll thread', () => {
    // The walk itself works: what the serving thread must load is found.
    expect(relative).toEqual(
      expect.arrayContaining(['app.ts', 'worker/thread.ts', 'worker/store.ts', 'server/metrics-endpoint.ts']),
    );
  });

  it('loads no source, no simulator and no Upstash client', () => {
    // (Its error classes, which the failure words of the landing page share, are small and load.)
    expect(relative.filter((file) => /^(sources|demo)\/|^upstash\/client\.ts$/.test(file))).toEqual([]);
    expect([...packages].filter((name) => name === 'undici')).toEqual([]);
  });

  it('imports the simulator only on demand, for --demo, and no source at all', () => {
    const lazy = [...files].filter((file) =>
      importsOf(file).some(
        (found) => found.kind === 'dynamic' && /^(sources|demo)\//.test(found.target.slice(SRC.length + 1)),
      ),
    );
    expect(lazy.map((file) => file.slice(SRC.length + 1))).toEqual(['cli.ts']);
  });
});
