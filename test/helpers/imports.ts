import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The program's imports as the TypeScript compiler parses them, for the tests that hold the layers to
// what they may import (test/imports.test.ts) and load (test/worker/serving-modules.test.ts).

export const SRC = join(dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * How a module names another: `static`, loaded with it; `type`, erased (`import type`, `export type`,
 * a type's `import('…')`); `dynamic`, an `import()` call, loaded only when that code runs.
 */
export type ImportKind = 'static' | 'type' | 'dynamic';

/** One import of a module: a file (absolute, `.ts`) for a relative specifier, else the package's name. */
export interface Import {
  readonly target: string;
  readonly relative: boolean;
  readonly kind: ImportKind;
}

/** Every import of `file`, of every kind. */
export function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: ts.Node | undefined, kind: ImportKind): void => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return;
    const relative = specifier.text.startsWith('.');
    const target = relative ? resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts')) : specifier.text;
    found.push({ target, relative, kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(
        node.moduleSpecifier,
        node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword ? 'type' : 'static',
      );
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'static');
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument)) add(argument.literal, 'type');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], 'dynamic');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether `file` awaits at its top level (outside every function), holding up whoever imports it. */
export function awaitsAtLoad(file: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): boolean => {
    if (ts.isFunctionLike(node)) return false;
    if (ts.isAwaitExpression(node)) return true;
    if (ts.isForOfStatement(node) && node.awaitModifier !== undefined) return true;
    return ts.forEachChild(node, visit) ?? false;
  };
  return visit(source);
}

/** Every module and package loaded with `entries` (paths under src/): static imports, transitively. */
export function loaded(entries: readonly string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = entries.map((entry) => join(SRC, entry));
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const found of importsOf(file)) {
      if (found.kind !== 'static') continue;
      if (found.relative) queue.push(found.target);
      else packages.add(found.target);
    }
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
