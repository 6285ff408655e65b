import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import ts from 'typescript';
import { z } from 'zod';
import { envVariable } from '../../src/config/env.js';
import { fileSchema } from '../../src/config/file-schema.js';
import { DATA_METRICS, SOURCE_KINDS } from '../../src/sources/kinds.js';
import { runToExit } from '../helpers/exporter-process.js';
import { metricNamesIn, ruleGroups } from '../helpers/promql.js';
import { SOURCE_NAMES } from '../../src/vocabulary.js';

// The README and docs/ held against the code where a statement can be: the lists they give (sources,
// metric families, config keys, flags, dashboard rows, alerts) are the program's own, the output they
// show is what the program prints, and every link points at a file (and heading) of the repository.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'charts/upstash-exporter/README.md',
];
const SOURCES = SOURCE_KINDS.map((kind) => kind.name).sort();

/** The first back-quoted word of each row of the table whose header line starts with `header`. */
function firstColumn(markdown: string, header: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  if (start < 0) throw new Error(`no table with the header ${header}`);
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cell = /^\|\s*`([^`]+)`/.exec(line);
    if (cell?.[1] !== undefined) rows.push(cell[1]);
  }
  return rows;
}

/** The schema beneath optional, refinements and transforms. */
function core(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) return core(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodPipe) return core(schema.in as z.ZodType);
  return schema;
}

/** Every key of the config file as a dotted path, `[]` marking a list of entries (`qstash[].token`). */
function configKeys(schema: z.ZodType = fileSchema, path = ''): string[] {
  const inner = core(schema);
  if (inner instanceof z.ZodObject) {
    const shape: Readonly<Record<string, z.ZodType>> = inner.shape;
    return Object.entries(shape).flatMap(([key, value]) =>
      configKeys(value, path === '' ? key : `${path}.${key}`),
    );
  }
  if (inner instanceof z.ZodArray && core(inner.element as z.ZodType) instanceof z.ZodObject)
    return configKeys(inner.element as z.ZodType, `${path}[]`);
  return [path];
}

describe('the sources', () => {
  it('README lists every source, with its cost and credential', () => {
    expect(firstColumn(read('README.md'), '| source |').sort()).toEqual(SOURCES);
  });

  it('docs/configuration.md says what each source costs', () => {
    expect(firstColumn(read('docs/configuration.md'), '| source | request |').sort()).toEqual(SOURCES);
  });

  it("docs/troubleshooting.md's UpstashAuthFailures lists every source under its credential", () => {
    const doc = read('docs/troubleshooting.md');
    const start = doc.indexOf('## UpstashAuthFailures');
    const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
    // Each credential's item runs from its `- \`label\`` to the next item or the next paragraph.
    const listed = (label: string): string[] => {
      const item = new RegExp(`^- \`${label}\`[\\s\\S]*?(?=^- |\\n\\n)`, 'm').exec(section)?.[0] ?? '';
      return [...item.matchAll(/`([a-z_]+)`/g)]
        .map(([, name = '']) => name)
        .filter((name) => (SOURCES as readonly string[]).includes(name))
        .sort();
    };
    expect(listed('qstash_token')).toEqual([...SOURCE_NAMES.qstash].sort());
    expect(listed('management_key')).toEqual([...SOURCE_NAMES.management].sort());
  });

  it('docs/metrics.md gives every value of the source label', () => {
    expect(firstColumn(read('docs/metrics.md'), '| `source` |').sort()).toEqual(SOURCES);
  });
});

describe('docs/metrics.md', () => {
  it('describes every metric family the exporter serves', () => {
    // The health families from the golden /metrics of the real program, the data families from the sources.
    const golden = read('test/fixtures/e2e-output.txt');
    const health = [...golden.matchAll(/^# TYPE (upstash_(?:up|exporter_[a-z_]+)) (\w+)$/gm)].map(
      ([, name = '', type]) => (type === 'counter' && !name.endsWith('_total') ? `${name}_total` : name),
    );
    const families = [...DATA_METRICS.map((metric) => metric.name), ...health];
    expect(health).toContain('upstash_up');
    expect(families.length).toBeGreaterThan(150);
    const doc = read('docs/metrics.md');
    expect(families.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});

describe('configuration', () => {
  const keys = configKeys();

  it('finds the keys of the schema (the walk is not vacuous)', () => {
    expect(keys).toContain('sharding.total');
    expect(keys).toContain('qstash[].dlq_interval');
    expect(keys).toContain('management[].backups_interval');
    expect(keys).toContain('metrics.allow');
  });

  it('docs/configuration.md names every key of the config file', () => {
    const doc = read('docs/configuration.md');
    expect(keys.filter((key) => !doc.includes(`\`${key}\``))).toEqual([]);
  });

  it('config.example.yaml has every key (the exclusive ones in comments)', () => {
    const example = read('config.example.yaml');
    const missing = keys.filter((key) => {
      const leaf = key.split('.').at(-1) ?? key;
      return !new RegExp(`(^|[\\s#{,])${leaf}:`, 'm').test(example);
    });
    expect(missing).toEqual([]);
    // Sections present as keys, not only in comments.
    const parsed = parse(example) as Record<string, unknown>;
    for (const key of new Set(keys.map((path) => path.split(/[.[]/)[0] ?? path)))
      if (key !== 'web_config_file') expect(parsed, key).toHaveProperty(key);
  });

  it('docs/configuration.md names every environment variable', () => {
    const variables = ['qstash', 'management'].flatMap((list) =>
      keys
        .filter((key) => key.startsWith(`${list}[].`))
        .map((key) => envVariable(key.replace('[]', '[0]')))
        .filter((variable) => /^[A-Z_]+$/.test(variable)),
    );
    expect(variables).toContain('UPSTASH_REDIS_DATABASES');
    const doc = read('docs/configuration.md');
    expect([...variables, 'UPSTASH_EXPORTER_CONFIG'].filter((name) => !doc.includes(`\`${name}\``))).toEqual(
      [],
    );
  });

  it('docs/configuration.md has every flag of --help', async () => {
    const help = await runToExit(['--help']);
    expect(help.code).toBe(0);
    const flags = [...new Set([...help.stdout.matchAll(/--[a-z][a-z.-]*[a-z]/g)].map(([flag]) => flag))];
    expect(flags).toContain('--log.format');
    const doc = read('docs/configuration.md');
    expect(flags.filter((flag) => !doc.includes(`\`${flag}`))).toEqual([]);
  });

  it("docs/configuration.md shows --check-config's output for config.example.yaml as it is", async () => {
    const doc = read('docs/configuration.md');
    const shown = /```text\n(configuration OK \(from config\.example\.yaml\)\n[\s\S]*?)```/.exec(doc)?.[1];
    expect(shown, 'a text block starting "configuration OK (from config.example.yaml)"').toBeDefined();
    const run = await runToExit(['--config', join(ROOT, 'config.example.yaml'), '--check-config'], {
      QSTASH_TOKEN: 'qstash-example-token',
      UPSTASH_API_KEY: 'api-example-key',
    });
    expect(run.code).toBe(0);
    expect(run.stdout.replace(join(ROOT, 'config.example.yaml'), 'config.example.yaml')).toBe(shown);
  });
});

describe('docs/dashboards.md', () => {
  it('names every row of both dashboards', () => {
    const doc = read('docs/dashboards.md').replace(/\s+/g, ' ');
    const rows = ['upstash.json', 'upstash-platform.json'].flatMap((file) => {
      const dashboard = JSON.parse(read(`grafana/dashboards/${file}`)) as {
        panels: { type: string; title: string }[];
      };
      return dashboard.panels
        .filter((panel) => panel.type === 'row')
        .map((row) => row.title.replace(/\s*\$\{[^}]+\}/g, ''));
    });
    expect(rows.length).toBeGreaterThan(8);
    expect(rows.filter((title) => !doc.includes(`**${title}**`))).toEqual([]);
  });
});

describe('alerts', () => {
  const alerts = ruleGroups().flatMap((group) => group.rules.flatMap((rule) => rule.alert ?? []));

  it('README recommends five alerts that exist', () => {
    const readme = read('README.md');
    const section = readme.slice(readme.indexOf('## The five alerts to enable first'));
    const named = firstColumn(section, '| alert |');
    expect(named).toHaveLength(5);
    expect(named.filter((name) => !alerts.includes(name))).toEqual([]);
    expect(readme).toContain(`${alerts.length} alerts`);
  });

  it('docs/alerting.md lists every alert', () => {
    const doc = read('docs/alerting.md');
    expect(alerts.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });

  it('docs/alerting.md says which credentials each alert reads data of, as its expression does', () => {
    // The APIs whose sources export the metrics an alert's expression reads, recording rules followed.
    // The name tables (group upstash.names) are left out: their joins fall back to the ID, so they need
    // nothing. The exporter's own series (upstash_up, upstash_exporter_*, Prometheus's up) need none.
    const rules = ruleGroups()
      .filter((group) => group.name !== 'upstash.names')
      .flatMap((group) => group.rules);
    const apiOf = new Map(
      SOURCE_KINDS.flatMap((kind) => {
        const api = (SOURCE_NAMES.qstash as readonly string[]).includes(kind.name) ? 'qstash' : 'management';
        return kind.metrics.map((metric) => [metric.name, api] as const);
      }),
    );
    const needs = (expr: string, seen = new Set<string>()): Set<string> => {
      const out = new Set<string>();
      for (const name of metricNamesIn(expr)) {
        const api = apiOf.get(name);
        if (api !== undefined) out.add(api);
        const record = rules.find((rule) => rule.record === name);
        if (record !== undefined && !seen.has(name))
          for (const inner of needs(record.expr, new Set([...seen, name]))) out.add(inner);
      }
      return out;
    };
    const doc = read('docs/alerting.md');
    const start = doc.indexOf('## What each alert needs');
    expect(start).toBeGreaterThan(0);
    const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
    const rows = section.split('\n').filter((line) => /^\| [a-z]/.test(line) && !line.startsWith('| needs'));
    const listed = rows.flatMap((row) => {
      const [needsCell = '', alertsCell = ''] = row.split('|').slice(1);
      return [...alertsCell.matchAll(/`(Upstash\w+)`/g)].map(
        ([, name = '']) => [name, needsCell.trim()] as const,
      );
    });
    const documented = new Map(listed);
    const said = (cell: string): string[] => [
      ...(cell.includes('QStash token') ? ['qstash'] : []),
      ...(cell.includes('management') ? ['management'] : []),
    ];
    const ruleOf = (name: string): string => rules.find((rule) => rule.alert === name)?.expr ?? '';
    // Each alert once, in one row.
    expect(listed.map(([name]) => name).sort()).toEqual([...alerts].sort());
    expect(Object.fromEntries(alerts.map((name) => [name, said(documented.get(name) ?? '')]))).toEqual(
      Object.fromEntries(alerts.map((name) => [name, [...needs(ruleOf(name))].sort().reverse()])),
    );
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading = ''] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

describe('links', () => {
  it.each(DOCS)('%s links only to files and headings of the repository', (file) => {
    const text = read(file);
    const broken: string[] = [];
    for (const [, target = ''] of text.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const absolute = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), path);
      if (relative(ROOT, absolute).startsWith('..') || !existsSync(absolute)) broken.push(target);
      else if (anchor !== undefined && absolute.endsWith('.md')) {
        if (!anchors(readFileSync(absolute, 'utf8')).has(anchor)) broken.push(target);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s points at nothing outside the repository', (file) => {
    expect(read(file)).not.toMatch(/\.\.\/shared|shared\/reference|CONTRACT/);
  });
});

// The spec is docs/: a comment in src/ says why and cites the section that states the behaviour
// ("docs/metrics.md, Event counters"), never a document outside the repository nor an issue.

const SOURCE_FILES = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => `src/${name.split('\\').join('/')}`)
  .sort();

/** Each comment of a TypeScript file, its markers stripped and its lines joined by a space. */
function commentsOf(file: string): string[] {
  const text = read(file);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined): void => {
    for (const range of ranges ?? []) {
      const raw = text.slice(range.pos, range.end);
      seen.set(range.pos, raw.replace(/^\s*(?:\/\/+|\/\*+|\*+\/?)[ \t]?/gm, '').replace(/\*\/$/, ''));
    }
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()].map((comment) => comment.replace(/\s+/g, ' ').trim());
}

/** What points outside the repository: the contract, an issue, or one of the contract's section numbers. */
const OUTSIDE = [
  /\bcontract\b/i,
  /\bissues?\s*#?\d/i,
  /\bsection\s+\d/i,
  /§\s*\d/,
  /(?<![\w.]|V8 )(?:[3-9]|1[01])\.[1-6](?=\)|'s\b|:|,)/,
];

/** Every file of the repository (and of its build), as a path from the root: not node_modules/ or `.`-folders. */
function repositoryFiles(folder = ''): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
    if (!entry.isDirectory()) return [path];
    return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : repositoryFiles(path);
  });
}
const REPOSITORY_FILES = repositoryFiles();

/** Names that look like files but are not (a runtime's name). */
const NOT_FILES = new Set(['Node.js']);

/**
 * The files a comment names that are nowhere in the repository (Upstash's OpenAPI files, say): a
 * name is found as a path from the root or as the tail of one (`worker/store.ts`, `store.ts`), a
 * built `.js` as its `.ts`.
 */
function filesOutside(comment: string): string[] {
  const named = comment.matchAll(
    /(?<![\w@/.-])((?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|js|mjs|cjs|json|ya?ml|md|sh))(?![\w])/g,
  );
  return [...named]
    .map(([, name = '']) => name.replace(/^(?:\.{1,2}\/)+/, ''))
    .filter((name) => !NOT_FILES.has(name))
    .filter((name) => {
      const tails = [name, name.replace(/\.js$/, '.ts')];
      return !REPOSITORY_FILES.some((file) =>
        tails.some((tail) => file === tail || file.endsWith(`/${tail}`)),
      );
    });
}

/** The headings of a markdown file, without their `#` and back-quotes. */
function headings(path: string): string[] {
  return read(path)
    .replace(/```[\s\S]*?```/g, '')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, '').replaceAll('`', '').trim());
}

describe('comments in src/ cite docs/', () => {
  it('finds the source files', () => {
    expect(SOURCE_FILES.length).toBeGreaterThan(100);
  });

  it.each(SOURCE_FILES)('%s cites neither the contract nor an issue', (file) => {
    const outside = commentsOf(file).filter((comment) => OUTSIDE.some((pattern) => pattern.test(comment)));
    expect(outside).toEqual([]);
  });

  it("finds a file named outside the repository, and not the repository's own", () => {
    expect(filesOutside('What the exporter reads of a run (workflow.openapi.yaml, WorkflowRun).')).toEqual([
      'workflow.openapi.yaml',
    ]);
    expect(
      filesOutside('see docs/metrics.md, worker/store.ts, ../fixed-paths.js, BENCHMARKS.md and Node.js'),
    ).toEqual([]);
  });

  it.each(SOURCE_FILES)('%s names no file outside the repository', (file) => {
    expect(commentsOf(file).flatMap(filesOutside)).toEqual([]);
  });

  it.each(SOURCE_FILES)('%s cites docs/ sections that exist', (file) => {
    const broken: string[] = [];
    for (const comment of commentsOf(file)) {
      for (const [cited = '', path = '', after] of comment.matchAll(
        /(docs\/[\w-]+\.md|BENCHMARKS\.md|README\.md)(?:, "?([^"]*))?/g,
      )) {
        if (!existsSync(join(ROOT, path))) broken.push(cited);
        else if (after !== undefined) {
          // The heading as cited ends at a bracket, quote, semicolon or full stop; it may be the
          // heading's head ("Delivery errors and workflow runs" of "… (`qstash_logs`, …)").
          const rest = after.replaceAll('`', '');
          const cited = rest.slice(0, rest.search(/[)";]|[.:](?:\s|$)|$/)).trim();
          const named = headings(path).some(
            (heading) =>
              (heading.startsWith(cited) && !/^[\w-]/.test(heading.slice(cited.length))) ||
              (cited.startsWith(heading) && !/^[\w-]/.test(cited.slice(heading.length))),
          );
          if (cited === '' || !named) broken.push(`${path}, ${rest.slice(0, 60)}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
