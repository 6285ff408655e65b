// Module hooks (node:module register) that let a worker thread run our TypeScript sources under
// vitest, as dist/ runs them in production: the poll worker is started from src/worker/worker.js, which
// exists only as src/worker/worker.ts. An import of a missing `.js` with a `.ts` beside it loads the
// `.ts`, transpiled by TypeScript alone (types are vitest's and tsc's business). Transpiled modules are
// kept in node_modules/.cache, so that TypeScript itself is loaded only when a source changed.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'upstash-exporter-ts');

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && (specifier.startsWith('.') || specifier.startsWith('file:'))) {
    const url = new URL(specifier, context.parentURL);
    if (url.protocol === 'file:' && !existsSync(fileURLToPath(url))) {
      const ts = new URL(url.href.replace(/\.js$/, '.ts'));
      if (existsSync(fileURLToPath(ts))) return { url: ts.href, format: 'module', shortCircuit: true };
    }
  }
  return next(specifier, context);
}

let typescript;

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const path = fileURLToPath(url);
  const { mtimeMs, size } = statSync(path);
  const key = createHash('sha256').update(`${path}\0${mtimeMs}\0${size}`).digest('hex');
  const cached = join(CACHE, `${key}.js`);
  if (existsSync(cached))
    return { format: 'module', source: readFileSync(cached, 'utf8'), shortCircuit: true };
  typescript ??= (await import('typescript')).default;
  const { outputText } = typescript.transpileModule(readFileSync(path, 'utf8'), {
    fileName: path,
    compilerOptions: {
      module: typescript.ModuleKind.ESNext,
      target: typescript.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      sourceMap: false,
    },
  });
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(cached, outputText);
  return { format: 'module', source: outputText, shortCircuit: true };
}
