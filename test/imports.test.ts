import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { awaitsAtLoad, importsOf, SRC, walk } from './helpers/imports.js';

// Imports flow one way (docs/architecture.md, "Architecture"): no module reaches itself again through
// its imports, whatever their kind: a type import or an import() is as much a dependency of its
// design as a static one, and a circle through either is how a load-order hang begins.

const FILES = walk(SRC);

/** Each module of src/ and the modules of src/ it imports, of any kind. */
const GRAPH = new Map(
  FILES.map((file) => [
    file,
    [...new Set(importsOf(file).flatMap((found) => (found.relative ? [found.target] : [])))],
  ]),
);

/** The circles of `graph`: each strongly connected component of more than one module, or a self-import. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return found;
}

const relative = (file: string): string => file.slice(SRC.length + 1);

/** The folder of src/ a module is in (`config/`), or the module itself for a file at the top of src/. */
const folderOf = (file: string): string => relative(file).replace(/\/.*$/, '/');

/** The graph of `graph`'s folders: an edge where a module of one imports a module of another. */
function folders(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = edges.get(folderOf(file)) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== folderOf(file)) from.add(folderOf(target));
    edges.set(folderOf(file), from);
  }
  return new Map([...edges].map(([folder, targets]) => [folder, [...targets].sort()]));
}

describe('the imports of src/', () => {
  test('the walk sees static, type and dynamic imports', () => {
    const kinds = new Set(FILES.flatMap((file) => importsOf(file).map((found) => found.kind)));
    expect([...kinds].sort()).toEqual(['dynamic', 'static', 'type']);
  });

  test('the cycle search finds a circle of any length', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
  });

  test('form no circle, counting type imports and import()', () => {
    expect(circles(GRAPH).map((component) => component.map(relative))).toEqual([]);
  });

  test('the folder graph finds a circle between folders that no module closes', () => {
    // config/a.ts → server/b.ts and server/c.ts → config/d.ts: no module reaches itself, the folders do.
    const [a, b, c, d] = ['config/a.ts', 'server/b.ts', 'server/c.ts', 'config/d.ts'].map((file) =>
      join(SRC, file),
    ) as [string, string, string, string];
    const graph = new Map([
      [a, [b]],
      [b, []],
      [c, [d]],
      [d, [join(SRC, 'vocabulary.ts')]],
    ]);
    expect(circles(graph)).toEqual([]);
    expect(circles(folders(graph))).toEqual([['config/', 'server/']]);
  });

  test('form no circle between folders (a file at the top of src/ is a folder of its own)', () => {
    // A folder is a layer: if config/ reads server/ while server/ reads config/, neither can be
    // understood, tested or loaded without the other (docs/architecture.md, "Architecture").
    const crossing = (component: readonly string[]): string[] =>
      FILES.flatMap((file) =>
        (GRAPH.get(file) ?? [])
          .filter(
            (target) =>
              folderOf(target) !== folderOf(file) &&
              component.includes(folderOf(file)) &&
              component.includes(folderOf(target)),
          )
          .map((target) => `${relative(file)} → ${relative(target)}`),
      );
    expect(circles(folders(GRAPH)).map(crossing)).toEqual([]);
  });

  test('reach the simulator (src/demo/) only from the process entry, under --demo', () => {
    // The simulator imports the table of sources; nothing of production imports it back, but cli.ts,
    // which starts it for --demo (docs/architecture.md, "Architecture").
    const importers = FILES.filter(
      (file) =>
        !relative(file).startsWith('demo/') &&
        importsOf(file).some((found) => found.relative && relative(found.target).startsWith('demo/')),
    );
    expect(importers.map(relative)).toEqual(['cli.ts']);
  });

  test('await at load time only in the entries, which nothing imports', () => {
    // A module that awaits as it loads holds up every module that imports it: the tables are static.
    const entries = ['main.ts', 'worker/worker.ts'];
    const awaiting = FILES.filter(awaitsAtLoad).map(relative);
    expect(awaiting.filter((file) => !entries.includes(file))).toEqual([]);
    expect(
      FILES.filter((file) =>
        importsOf(file).some((found) => entries.map((entry) => join(SRC, entry)).includes(found.target)),
      ),
    ).toEqual([]);
  });
});

test('the load-time await detector finds the entries’ awaits, and only those outside functions', async () => {
  // The rule above passes with a detector that finds nothing: hold the detector to known answers.
  expect(awaitsAtLoad(join(SRC, 'main.ts'))).toBe(true);
  expect(awaitsAtLoad(join(SRC, 'worker/worker.ts'))).toBe(true);
  expect(awaitsAtLoad(join(SRC, 'cli.ts'))).toBe(false);
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-imports-'));
  const detects = (source: string): boolean => {
    const file = join(dir, 'module.ts');
    writeFileSync(file, source);
    return awaitsAtLoad(file);
  };
  expect(detects('await Promise.resolve();\n')).toBe(true);
  expect(detects('if (process.env.X) { const { a } = await import("./a.js"); void a; }\n')).toBe(true);
  expect(detects('for await (const line of lines) void line;\n')).toBe(true);
  expect(detects('export async function f() { await Promise.resolve(); }\n')).toBe(false);
  expect(detects('export const f = async () => { for await (const x of xs) void x; };\n')).toBe(false);
  expect(detects('class A { async m() { await 1; } }\n')).toBe(false);
});
