// What the lints of the dashboard and of the rules need to know about PromQL and about the metrics that
// exist: the metric names and selectors of an expression, and which names (and labels) the exporter
// exports.
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { DATA_METRICS } from '../../src/sources/kinds.js';

export const root = new URL('../../', import.meta.url);

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The groups of prometheus/alerts.yml. */
export function ruleGroups(): { name: string; rules: Rule[] }[] {
  return (
    parseYaml(readFileSync(new URL('prometheus/alerts.yml', root), 'utf8')) as {
      groups: { name: string; rules: Rule[] }[];
    }
  ).groups;
}

// Which metric names exist: what the exporter really prints (the e2e golden file) when it exists,
// else the public contract; plus the recording rules of prometheus/alerts.yml.

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'atan2',
  'inf',
  'nan',
]);

/** Metric names in the exposition text (sample lines and `# TYPE` lines). */
export function namesFromExposition(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type?.[1]) names.add(type[1]);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample?.[1]) names.add(sample[1]);
  }
  return names;
}

/** Metric names that the contract promises: every back-quoted `upstash_…` name. */
function namesFromContract(text: string): Set<string> {
  return new Set([...text.matchAll(/`(upstash_[a-z0-9_]+)`/g)].map((m) => m[1] ?? ''));
}

/**
 * Names an alert or panel already reads whose source lands in a parallel change: the rules are written
 * so that they work once it does. A name here must not be exported yet (test/dashboard.test.ts checks
 * it), so that it is removed when its source lands.
 */
export const NOT_YET_EXPORTED: readonly string[] = [];

export function exportedNames(): { names: Set<string>; from: string } {
  const golden = new URL('test/fixtures/e2e-output.txt', root);
  if (existsSync(golden)) {
    // The golden file polls a frozen simulator once; the event sources' counters start
    // at the exporter's start, after every event of that frozen past, so they have no series there.
    // Their families, as the sources declare them, are what the exporter exports once events come.
    const names = namesFromExposition(readFileSync(golden, 'utf8'));
    for (const metric of DATA_METRICS) {
      if (metric.type === 'counter') names.add(metric.name);
      if (metric.type === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
    }
    return { names, from: `${golden.pathname} or the event sources' families` };
  }
  const contract = new URL('../shared/CONTRACT.md', root);
  if (existsSync(contract))
    return { names: namesFromContract(readFileSync(contract, 'utf8')), from: contract.pathname };
  throw new Error(
    `cannot tell which metrics the exporter exports: neither ${golden.pathname} nor ${contract.pathname} exists`,
  );
}

export function recordingRuleNames(): Set<string> {
  return new Set(ruleGroups().flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))));
}

/**
 * The metric names a PromQL expression selects. Strings, label matchers, ranges, grouping label lists
 * and function names are taken out first; what is left that looks like a name is a metric.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of stripped.matchAll(/(?<![\w.$:])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = m;
    if (name === undefined || call !== undefined || PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    names.push(name);
  }
  return names;
}

/** Every `name{…}` or bare `name` selector in an expression, with its matcher text. */
export function selectorsIn(expr: string): { name: string; matchers: string }[] {
  const out: { name: string; matchers: string }[] = [];
  const known = new Set(metricNamesIn(expr));
  for (const m of expr.matchAll(/(?<![\w.$:"])([A-Za-z_:][\w:]*)\s*(\{[^}]*\})?/g)) {
    const [, name, matchers] = m;
    if (name !== undefined && known.has(name)) out.push({ name, matchers: matchers ?? '' });
  }
  return out;
}

/** The label names each metric of the exporter's golden /metrics carries. */
export function exportedLabels(): Map<string, Set<string>> {
  const text = readFileSync(new URL('test/fixtures/e2e-output.txt', root), 'utf8');
  const labels = new Map<string, Set<string>>();
  for (const m of text.matchAll(/^([a-zA-Z_:][\w:]*)\{([^}]*)\}/gm)) {
    const [, name, body] = m;
    if (name === undefined || body === undefined) continue;
    const set = labels.get(name) ?? new Set<string>();
    for (const l of body.matchAll(/([a-zA-Z_]\w*)="/g)) set.add(l[1] ?? '');
    labels.set(name, set);
  }
  return labels;
}
