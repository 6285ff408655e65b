import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dynamicImports, loaded, SRC, walk } from '../helpers/imports.js';

// Every module the serving thread loads is compiled and kept in its own V8 heap, beside the poll
// worker's copy: the Upstash client (undici, its WebAssembly parser), every source and every response
// schema cost the serving thread ~6-10 MB of heap pages for code it never runs (BENCHMARKS.md, "Issue
// 27, third part"). So the serving thread learns the data section's families from the worker's first
// publication (Publication.catalogue) instead of importing the sources. This walks the static imports
// of the program's entries as Node loads them (an `import type` is erased; a dynamic import(), such
// as the simulator's under --demo, loads only when it runs). The registry of sources, which the
// serving thread reads for the names the config accepts, names every source and simulator module in
// such imports: so this also checks that only the poll worker's and the simulator's modules call them.

describe('the serving thread', () => {
  const { files, packages } = loaded(['main.ts', 'cli.ts']);
  const relative = [...files].map((file) => file.slice(SRC.length + 1)).sort();

  it('loads the server, the scrape cache and the poll thread', () => {
    // The walk itself works: what the serving thread must load is found.
    expect(relative).toEqual(
      expect.arrayContaining(['app.ts', 'polling/thread.ts', 'polling/store.ts', 'server/scrape-cache.ts']),
    );
  });

  it('loads no source, no simulator and no Upstash client', () => {
    // (Its error classes, which the failure words of the landing page share, are small and load.)
    expect(relative.filter((file) => /^(sources|demo)\/|^upstash\/client\.ts$/.test(file))).toEqual([]);
    expect([...packages].filter((name) => name === 'undici')).toEqual([]);
  });

  it('imports sources and the simulator only on demand, and only their own modules call for them', () => {
    const lazy = [...files].filter((file) =>
      dynamicImports(file).some((target) => /^(sources|demo)\//.test(target.slice(SRC.length + 1))),
    );
    // The simulator under --demo, and the registry's rows, whose loaders the serving thread never calls:
    expect(lazy.map((file) => file.slice(SRC.length + 1)).sort()).toEqual(['cli.ts', 'source-registry.ts']);
    const callers = walk(SRC).filter((file) => /\.(kind|simulator)\(\)/.test(readFileSync(file, 'utf8')));
    expect(callers.map((file) => file.slice(SRC.length + 1)).sort()).toEqual([
      'demo/routes.ts',
      'sources/kinds.ts',
    ]);
  });
});
