// The rules every alert of prometheus/alerts.yml keeps, so that alerts added later keep them too: a
// summary, a description, a severity and a runbook_url into its own section of docs/troubleshooting.md;
// databases, indexes and QStash instances named by name (joined from their listing's series), not only
// by ID; joins on health series over every health label; the job selector in every selector, so that
// scripts/alert-rules.mjs (and the chart) can set another; the credential of every source; and the
// Alertmanager example grouping and inhibiting by every health label, but rejected credentials by
// credential.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { HEALTH_LABELS, SOURCE_NAMES, UNIT_KINDS } from '../src/vocabulary.js';
import { exportedLabels, metricNamesIn, root, ruleGroups, selectorsIn, type Rule } from './helpers/promql.js';

const run = promisify(execFile);

const rules = ruleGroups().flatMap((g) => g.rules);
const alerts = rules.filter((r): r is Rule & { alert: string } => r.alert !== undefined);
const rulesText = readFileSync(new URL('prometheus/alerts.yml', root), 'utf8');
const troubleshooting = readFileSync(new URL('docs/troubleshooting.md', root), 'utf8');

/**
 * How each ID label is said by name: the label that names it, and the series that carry that label
 * (the listing's info series, or the name table of alerts.yml that falls back to the ID). `index_id`
 * is the Vector and Search indexes' (docs/metrics.md, Vector and Search indexes).
 */
const NAMES: Record<string, { label: string; from: string[] }> = {
  database_id: {
    label: 'database_name',
    from: ['upstash_redis_database_info', 'account_database_id:upstash_redis_database_info:name'],
  },
  qstash_id: {
    label: 'region',
    from: ['upstash_qstash_instance_info', 'account_qstash_id:upstash_qstash_instance_info:region'],
  },
  index_id: {
    label: 'index_name',
    from: [
      'upstash_vector_index_info',
      'upstash_search_index_info',
      'account_index_id:upstash_index_info:name',
    ],
  },
};
const ID_LABELS = Object.keys(NAMES);

/**
 * The label names an expression's series may carry: those of its metrics, recorded ones resolved. An
 * aggregation keeps only its `by` labels (`without`: all but those; topk and bottomk: all), so a limit
 * taken as `min(…)` over every instance does not make an account-wide alert speak of an instance.
 */
function labelsOf(expr: string, known: Map<string, Set<string>>, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  let rest = expr;
  const aggregation =
    /\b(sum|min|max|avg|count|group|stddev|stdvar|topk|bottomk|quantile|count_values)\s*(?:(by|without)\s*\(([^)]*)\)\s*)?\(/;
  for (let m = aggregation.exec(rest); m !== null; m = aggregation.exec(rest)) {
    const open = m.index + m[0].length - 1;
    let depth = 0;
    let close = open;
    for (; close < rest.length; close++) {
      if (rest[close] === '(') depth++;
      else if (rest[close] === ')' && --depth === 0) break;
    }
    const after = /^\s*(by|without)\s*\(([^)]*)\)/.exec(rest.slice(close + 1));
    const mode = m[2] ?? after?.[1];
    const list = new Set((m[3] ?? after?.[2] ?? '').split(',').map((l) => l.trim()));
    const inner = labelsOf(rest.slice(open + 1, close), known, seen);
    for (const l of inner) {
      const kept =
        mode === 'by' ? list.has(l) : mode === 'without' ? !list.has(l) : /^(topk|bottomk)$/.test(m[1] ?? '');
      if (kept) out.add(l);
    }
    rest = `${rest.slice(0, m.index)} ${rest.slice(close + 1 + (after?.[0].length ?? 0))}`;
  }
  for (const name of metricNamesIn(rest)) {
    for (const l of known.get(name) ?? []) out.add(l);
    const record = rules.find((r) => r.record === name);
    if (record && !seen.has(name)) {
      for (const l of labelsOf(record.expr, known, new Set([...seen, name]))) out.add(l);
    }
  }
  return out;
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
const sections = [...troubleshooting.matchAll(/^## (.+)$/gm)].map((m) => m[1] ?? '');

describe('prometheus/alerts.yml alerts', () => {
  it('are there to check', () => {
    expect(alerts.length).toBeGreaterThan(20);
  });

  // `info`: a setting worth knowing about that needs no action soon (TLS or daily backups off).
  it('each have a summary, a description and a severity of warning, critical or info', () => {
    const wrong = alerts.flatMap((a) => [
      ...(a.annotations?.summary?.trim() ? [] : [`${a.alert}: no summary`]),
      ...(a.annotations?.description?.trim() ? [] : [`${a.alert}: no description`]),
      ...(['warning', 'critical', 'info'].includes(a.labels?.severity ?? '') ? [] : [`${a.alert}: severity`]),
    ]);
    expect(wrong).toEqual([]);
  });

  it('each have a runbook_url into their own section of docs/troubleshooting.md', () => {
    const anchors = new Set(sections.map(anchor));
    const wrong = alerts
      .filter((a) => {
        const url = a.annotations?.runbook_url;
        const expected = `docs/troubleshooting.md#${anchor(a.alert)}`;
        return url !== expected || !anchors.has(anchor(a.alert));
      })
      .map((a) => `${a.alert}: runbook_url ${a.annotations?.runbook_url ?? '(none)'}`);
    expect(wrong).toEqual([]);
    // …and the document has no section for an alert that is gone.
    const names = new Set(alerts.map((a) => a.alert));
    expect(sections.filter((s) => /^Upstash\w+$/.test(s) && !names.has(s))).toEqual([]);
  });

  it('are each listed in docs/alerting.md with their for and severity', () => {
    const doc = readFileSync(new URL('docs/alerting.md', root), 'utf8');
    const rows = new Map(
      [...doc.matchAll(/^\| `(Upstash\w+)` \|.*\|\s*(\w*)\s*\|\s*(\w+)\s*\|$/gm)].map((m) => [
        m[1],
        [m[2], m[3]],
      ]),
    );
    expect(Object.fromEntries(alerts.map((a) => [a.alert, rows.get(a.alert)]))).toEqual(
      Object.fromEntries(alerts.map((a) => [a.alert, [a.for ?? '', a.labels?.severity]])),
    );
    expect(rows.size).toBe(alerts.length);
  });

  it('name every ID their series carry by name (joined from the listing), falling back to the ID', () => {
    // Every kind of polled unit has its name here: a new kind makes this fail until it is added.
    for (const label of Object.values(UNIT_KINDS))
      if (label !== undefined) expect(ID_LABELS).toContain(label);
    const known = exportedLabels();
    const wrong: string[] = [];
    for (const a of alerts) {
      const text = `${a.annotations?.summary ?? ''} ${a.annotations?.description ?? ''}`;
      const carried = labelsOf(a.expr, known);
      const names = metricNamesIn(a.expr);
      for (const id of ID_LABELS) {
        const { label, from } = NAMES[id]!;
        const usesId = text.includes(`$labels.${id}`);
        if (!carried.has(id) && !usesId) continue;
        if (!usesId) wrong.push(`${a.alert}: its series carry ${id} but its text does not say which`);
        if (!text.includes(`$labels.${label}`)) wrong.push(`${a.alert}: says ${id} without ${label}`);
        if (!from.some((f) => names.includes(f))) wrong.push(`${a.alert}: no join on ${from.join(' or ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('match health series on every health label', () => {
    // A join list that names `source` speaks of health series: it needs every health label, or two
    // units (two QStash instances of an account) would be taken for one.
    const wrong: string[] = [];
    for (const r of rules) {
      for (const m of r.expr.matchAll(/\b(?:on|by)\s*\(([^)]*)\)/g)) {
        const list = (m[1] ?? '').split(',').map((l) => l.trim());
        if (!list.includes('source')) continue;
        const missing = HEALTH_LABELS.filter((l) => !list.includes(l));
        if (missing.length > 0) wrong.push(`${r.alert ?? r.record}: ${m[0]} lacks ${missing.join(', ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('say which credential UpstashAuthFailures needs: the QStash sources and the management ones, every one', () => {
    // The label_replace lists of the rule are the vocabulary's: a new source needs its credential here.
    const auth = alerts.find((a) => a.alert === 'UpstashAuthFailures');
    const lists: Record<string, string[]> = {};
    for (const m of (auth?.expr ?? '').matchAll(/"credential",\s*"(\w+)",\s*"source",\s*"([\w|]+)"/g))
      lists[m[1] ?? ''] = (m[2] ?? '').split('|').sort();
    expect(lists).toEqual({
      qstash_token: [...SOURCE_NAMES.qstash].sort(),
      management_key: [...SOURCE_NAMES.management].sort(),
    });
  });

  it('select job="upstash" in every selector, and nowhere but in expressions', () => {
    const wrong: string[] = [];
    for (const r of rules) {
      const braces = [...r.expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').matchAll(/\{[^}]*\}/g)].length;
      const jobs = [...r.expr.matchAll(/\{[^}]*\bjob="upstash"[^}]*\}/g)].length;
      if (jobs !== braces) wrong.push(`${r.alert ?? r.record}: a {…} without job="upstash"`);
      for (const s of selectorsIn(r.expr)) {
        if (!s.matchers.includes('job="upstash"'))
          wrong.push(`${r.alert ?? r.record}: ${s.name}${s.matchers}`);
      }
      for (const [key, value] of Object.entries({ ...r.labels, ...r.annotations })) {
        if (value.includes('job="upstash"')) wrong.push(`${r.alert ?? r.record}: ${key}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('scripts/alert-rules.mjs', () => {
  const script = fileURLToPath(new URL('scripts/alert-rules.mjs', root));

  it('prints alerts.yml without its runbook links by default (a relative link opens nowhere), byte for byte otherwise', async () => {
    const { stdout } = await run(process.execPath, [script]);
    expect(stdout).not.toContain('runbook_url:');
    const withoutLinks = rulesText
      .split('\n')
      .filter((line) => !/^\s+runbook_url: docs\/troubleshooting\.md#/.test(line))
      .join('\n');
    expect(stdout).toBe(withoutLinks);
    const out = (parseYaml(stdout) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
    expect(out).toHaveLength(rules.length);
    for (const [i, rule] of rules.entries()) {
      const annotations = { ...rule.annotations };
      delete annotations.runbook_url;
      expect(out[i]).toEqual(rule.annotations === undefined ? rule : { ...rule, annotations });
    }
  });

  it('sets the job selector in every expression and the base of every runbook link, nothing else', async () => {
    const selector = 'job="upstash-prod", namespace=~"monitoring|ops"';
    const { stdout } = await run(process.execPath, [
      script,
      '--job-selector',
      selector,
      '--runbook-base-url',
      'https://github.example/acme/upstash-exporter/blob/v1',
    ]);
    const out = (parseYaml(stdout) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
    expect(out).toHaveLength(rules.length);
    for (const [i, rule] of rules.entries()) {
      const changed = out[i]!;
      expect(changed.expr).not.toContain('job="upstash"');
      expect(changed.expr.split(selector).length).toBe(rule.expr.split('job="upstash"').length);
      expect(changed.expr.replaceAll(selector, 'job="upstash"')).toBe(rule.expr);
      if (rule.alert === undefined) {
        expect({ ...changed, expr: rule.expr }).toEqual(rule);
        continue;
      }
      expect(changed.annotations?.runbook_url).toBe(
        `https://github.example/acme/upstash-exporter/blob/v1/${rule.annotations?.runbook_url ?? ''}`,
      );
      expect({
        ...changed,
        expr: rule.expr,
        annotations: { ...changed.annotations, runbook_url: rule.annotations?.runbook_url },
      }).toEqual(rule);
    }
  });

  it('refuses a selector that is not label matchers, and says what it expects', async () => {
    const failed = await run(process.execPath, [script, '--job-selector', 'job=upstash']).then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('expected label matchers such as job="upstash-prod"');
  });

  it('refuses a runbook base that a notification could not open', async () => {
    for (const base of ['docs', 'ftp://mirror.example/upstash-exporter', 'https://']) {
      const failed = await run(process.execPath, [script, '--runbook-base-url', base]).then(
        () => undefined,
        (error: unknown) => error as { code: number; stderr: string },
      );
      expect(failed?.code, base).toBe(2);
      expect(failed?.stderr).toContain('expected an absolute http(s) URL');
    }
  });
});

describe('alertmanager/alertmanager.yml', () => {
  const config = parseYaml(readFileSync(new URL('alertmanager/alertmanager.yml', root), 'utf8')) as {
    route: {
      group_by: string[];
      routes: { matchers: string[]; group_by?: string[]; receiver: string }[];
    };
    inhibit_rules: { target_matchers: string[]; equal: string[] }[];
  };

  it('groups by every health label, so that each unit has its own notification', () => {
    expect(config.route.group_by).toEqual(expect.arrayContaining(['alertname', ...HEALTH_LABELS]));
  });

  it('groups rejected credentials by credential, so that one revoked key is one page', () => {
    // Routes match in order: the auth route must come before the critical one, which groups per unit.
    const route = config.route.routes.find((r) => r.matchers.some((m) => m.includes('UpstashAuthFailures')));
    expect(route).toBeDefined();
    expect(config.route.routes.indexOf(route!)).toBe(0);
    expect(route?.group_by).toEqual(expect.arrayContaining(['alertname', 'account', 'credential']));
    expect(route?.group_by?.filter((l) => (HEALTH_LABELS as readonly string[]).includes(l))).toEqual([
      'account',
    ]);
    expect(route?.receiver).toBe('on-call');
  });

  it('inhibits a unit’s alert only by an alert of the same unit (every health label equal)', () => {
    const perUnit = config.inhibit_rules.filter((r) =>
      r.target_matchers.some((m) => /UpstashSourceDown|UpstashDataStale/.test(m)),
    );
    expect(perUnit.length).toBeGreaterThan(0);
    for (const rule of perUnit) expect(rule.equal).toEqual(expect.arrayContaining(['job', ...HEALTH_LABELS]));
  });
});
