import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The program's imports as Node loads them, read from the sources: an `import type` is erased, and a
// dynamic import() loads only when it runs. For the tests that hold the layers to what they may load.

export const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

/** The files a module imports with import() (relative ones), loaded only when that code runs. */
export function dynamicImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)].map(([, specifier]) =>
    resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')),
  );
}

/** The static imports of a module: relative ones as files, packages by name. */
export function imports(file: string): { files: string[]; packages: string[] } {
  const text = readFileSync(file, 'utf8');
  const files: string[] = [];
  const packages: string[] = [];
  for (const [, kind, specifier] of text.matchAll(
    /^(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gms,
  )) {
    if (kind !== undefined || specifier === undefined) continue;
    if (specifier.startsWith('.')) files.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
    else packages.push(specifier);
  }
  return { files, packages };
}

/** Every module and package loaded from `entries` (paths under src/), statically. */
export function loaded(entries: readonly string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = entries.map((entry) => join(SRC, entry));
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    const found = imports(file);
    queue.push(...found.files);
    for (const name of found.packages) packages.add(name);
  }
  return { files, packages };
}

/** Every TypeScript file under `dir`. */
export function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? walk(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}
