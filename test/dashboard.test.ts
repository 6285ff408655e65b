// Lint of the Grafana dashboards: templated data source everywhere, unique panel ids, a unit on every
// panel, $__rate_interval wherever a query rates, and no query naming a metric the exporter does not
// export. Whether each query also runs and returns data in a real Prometheus is test/stack's job.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  exportedLabels,
  exportedNames,
  metricNamesIn,
  recordingRuleNames,
  NOT_YET_EXPORTED,
  root,
  ruleGroups,
  selectorsIn,
} from './helpers/promql.js';

interface DataSourceRef {
  type?: string;
  uid?: string;
}

interface Target {
  refId?: string;
  expr?: string;
  legendFormat?: string;
  datasource?: DataSourceRef;
  exemplar?: boolean;
}

interface Panel {
  id?: number;
  type: string;
  title?: string;
  datasource?: DataSourceRef;
  gridPos?: { h: number; w: number; x: number; y: number };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Target[];
  panels?: Panel[];
  repeat?: string;
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
  datasource?: DataSourceRef;
  definition?: string;
  regex?: string;
}

interface Dashboard {
  uid?: string;
  title?: string;
  schemaVersion?: number;
  panels: Panel[];
  templating: { list: Variable[] };
}

/** Every dashboard the project ships (the Helm chart's ConfigMap carries the same files). */
const DASHBOARD_FILES = ['upstash.json', 'upstash-platform.json'] as const;

const TEMPLATED = { type: 'prometheus', uid: '${datasource}' };

/** Every panel, rows included, also those nested inside collapsed rows. */
function allPanels(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

/** A dashboard file, its panels, the panels with queries, and every query. */
function load(file: string) {
  const dashboard = JSON.parse(
    readFileSync(new URL(`grafana/dashboards/${file}`, root), 'utf8'),
  ) as Dashboard;
  const panels = allPanels(dashboard.panels);
  const queryPanels = panels.filter((p) => p.type !== 'row');
  const targets = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title ?? '?', ...t })));
  return { dashboard, panels, queryPanels, targets };
}

function variableQuery(v: Variable): string {
  return typeof v.query === 'string' ? v.query : (v.query?.query ?? '');
}

describe('grafana/dashboards/upstash.json', () => {
  const { dashboard } = load('upstash.json');

  it('is a Grafana 10+ dashboard with a stable uid and the six template variables', () => {
    expect(dashboard.uid).toBe('upstash-exporter');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect([...vars.keys()]).toEqual(['datasource', 'job', 'account', 'database', 'database_id', 'label']);
    expect(vars.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    for (const name of ['job', 'account', 'database', 'database_id', 'label']) {
      const v = vars.get(name);
      expect(v?.type, name).toBe('query');
      expect(v?.datasource, name).toEqual(TEMPLATED);
    }
    for (const name of ['job', 'account', 'database', 'label']) {
      expect(variableQuery(vars.get(name)!), name).toMatch(/^label_values\(/);
    }
  });

  it('chooses databases by name: the database_id variable shows each name, its value the ID', () => {
    const v = dashboard.templating.list.find((x) => x.name === 'database_id')!;
    expect(variableQuery(v)).toMatch(
      /^query_result\(max by \(database_id, database_name\) \(upstash_redis_database_info\{[^}]*database_name=~"\$database"\}\)\)$/,
    );
    // Grafana's named groups: `text` is what the drop-down and ${database_id:text} show, `value` what
    // $database_id becomes in the queries. query_result prints the labels in alphabetical order.
    const regex = new RegExp((v.regex ?? '').replace(/^\/|\/$/g, ''));
    const line = '{database_id="db-1", database_name="cache-prod"} 1 1700000000000';
    expect(regex.exec(line)?.groups).toEqual({ value: 'db-1', text: 'cache-prod' });
  });

  it('has the overview, QStash, delivery, workflow, per-database Redis, all-databases, account-safety and label rows', () => {
    const rows = dashboard.panels.filter((p) => p.type === 'row');
    expect(rows.map((r) => r.title)).toEqual([
      'Overview',
      'QStash',
      'QStash queues and schedules',
      'QStash limits',
      'QStash delivery',
      'Where deliveries fail',
      'Workflows',
      'Redis ${database_id:text}',
      'Redis databases',
      'Account safety',
      'By your labels',
    ]);
    expect(rows[7]?.repeat).toBe('database_id');
  });

  it('shows exemplars on the panels of the exemplar families, and only there', () => {
    const exemplarFamilies =
      /upstash_qstash_delivery_errors_total|upstash_workflow_runs_finished_total|upstash_workflow_run_duration_seconds_bucket|upstash_workflow_failure_callbacks_total/;
    const targets = allPanels(dashboard.panels).flatMap((p) =>
      (p.targets ?? []).map((t) => ({ title: p.title ?? '?', ...t })),
    );
    const shown = targets.filter((t) => t.exemplar === true).map((t) => t.title);
    expect(new Set(shown)).toEqual(
      new Set([
        'Delivery errors by destination and code',
        'Workflow runs finished by outcome',
        'Workflow run duration',
        'Failure callbacks that failed',
      ]),
    );
    for (const t of targets.filter((t) => t.exemplar === true))
      expect(t.expr ?? '', t.title).toMatch(exemplarFamilies);
  });

  it('filters every query of the label row by the label variable', () => {
    const row = dashboard.panels.findIndex((p) => p.type === 'row' && p.title === 'By your labels');
    const panels = dashboard.panels.slice(row + 1);
    expect(panels.length).toBe(4);
    for (const p of panels)
      for (const t of p.targets ?? []) expect(t.expr ?? '', p.title).toContain('label=~"$label"');
    const exprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? '')).join('\n');
    for (const name of [
      'account_label:upstash_qstash_delivery_error_ratio:rate5m',
      'upstash_qstash_label_delivery_errors_total',
      'upstash_qstash_label_deliveries_total',
      'upstash_workflow_label_runs_finished_total',
    ])
      expect(exprs).toContain(name);
  });

  it('shows the backups and settings of the databases', () => {
    const exprs = allPanels(dashboard.panels).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
    for (const name of [
      'upstash_redis_backups',
      'upstash_redis_backup_last_completed_timestamp_seconds',
      'upstash_redis_backup_last_failed_timestamp_seconds',
      'upstash_redis_feature_enabled',
      'upstash_redis_replicas',
      'upstash_redis_read_regions',
    ])
      expect(
        exprs.some((e) => metricNamesIn(e).includes(name)),
        name,
      ).toBe(true);
  });
});

describe('grafana/dashboards/upstash-platform.json', () => {
  const { dashboard, targets } = load('upstash-platform.json');

  it('is a Grafana 10+ dashboard with a stable uid, and selects indexes by name', () => {
    expect(dashboard.uid).toBe('upstash-exporter-platform');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect([...vars.keys()]).toEqual(['datasource', 'job', 'account', 'vector_index', 'search_index']);
    expect(variableQuery(vars.get('vector_index')!)).toMatch(
      /^label_values\(upstash_vector_index_info\{.*\}, index_name\)$/,
    );
    expect(variableQuery(vars.get('search_index')!)).toMatch(
      /^label_values\(upstash_search_index_info\{.*\}, index_name\)$/,
    );
    // Every per-index query is narrowed to the selected names through the info series.
    for (const t of targets) {
      const expr = t.expr ?? '';
      if (/upstash_(vector|search)_indexes/.test(expr)) continue;
      expect(expr, t.panel).toMatch(/index_name=~"\$(vector|search)_index"/);
    }
  });

  it('has a row per product, and leaves unlimited (-1) limits out of every ratio', () => {
    const rows = dashboard.panels.filter((p) => p.type === 'row');
    expect(rows.map((r) => r.title)).toEqual(['Vector indexes', 'Search indexes']);
    for (const t of targets) {
      const limit = /upstash_(vector|search)_max_\w+\{[^}]*\}/.exec(t.expr ?? '');
      if (limit !== null && (t.expr ?? '').includes('/'))
        expect(t.expr, t.panel).toContain(`(${limit[0]} > 0)`);
    }
  });
});

describe.each(DASHBOARD_FILES)('grafana/dashboards/%s', (file) => {
  const { dashboard, panels, queryPanels, targets } = load(file);

  it('takes its data source from the datasource variable in every panel, query and variable', () => {
    const wrong: string[] = [];
    for (const p of queryPanels) {
      if (JSON.stringify(p.datasource) !== JSON.stringify(TEMPLATED)) wrong.push(`panel "${p.title}"`);
      for (const t of p.targets ?? []) {
        if (JSON.stringify(t.datasource) !== JSON.stringify(TEMPLATED)) {
          wrong.push(`panel "${p.title}" query ${t.refId}`);
        }
      }
    }
    for (const v of dashboard.templating.list.filter((x) => x.type === 'query')) {
      if (JSON.stringify(v.datasource) !== JSON.stringify(TEMPLATED)) wrong.push(`variable ${v.name}`);
    }
    // Nothing anywhere names a concrete data source.
    const uids = [...JSON.stringify(dashboard).matchAll(/"uid":\s*"([^"]*)"/g)].map((m) => m[1]);
    for (const uid of uids) {
      if (uid !== '${datasource}' && uid !== dashboard.uid) wrong.push(`hard-coded uid ${uid}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives every panel a unique id', () => {
    const ids = panels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sets a unit on every panel', () => {
    const missing = queryPanels.filter((p) => !p.fieldConfig?.defaults?.unit).map((p) => p.title);
    expect(missing).toEqual([]);
  });

  it('gives every panel a title, a place on the grid and at least one query with a unique refId', () => {
    for (const p of queryPanels) {
      expect(p.title, `panel ${p.id}`).toBeTruthy();
      expect(p.gridPos, `panel ${p.title}`).toBeDefined();
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(refIds.length, `panel ${p.title}`).toBeGreaterThan(0);
      expect(new Set(refIds).size, `panel ${p.title}`).toBe(refIds.length);
      for (const t of p.targets ?? []) expect(t.expr?.trim(), `panel ${p.title} ${t.refId}`).toBeTruthy();
    }
  });

  it('names databases, indexes and QStash instances: no title shows an ID, no legend an ID without its name', () => {
    const wrong: string[] = [];
    for (const p of panels) {
      if (/\$\{?(database_id|index_id)(?!:text)/.test(p.title ?? '')) wrong.push(`title "${p.title}"`);
    }
    const carried = exportedLabels();
    for (const t of targets) {
      const legend = t.legendFormat ?? '';
      if (legend.includes('{{database_id}}') && !legend.includes('{{database_name}}')) {
        wrong.push(`${t.panel} ${t.refId}: legend ${legend}`);
      }
      if (legend.includes('{{qstash_id}}') && !legend.includes('{{region}}')) {
        wrong.push(`${t.panel} ${t.refId}: legend ${legend}`);
      }
      if (legend.includes('{{index_id}}') && !legend.includes('{{index_name}}')) {
        wrong.push(`${t.panel} ${t.refId}: legend ${legend}`);
      }
      // Series of QStash instances, unaggregated, are told apart in the legend (two instances of an
      // account would otherwise look the same).
      const aggregated = /\b(by|without)\s*\(/.test((t.expr ?? '').split(' * on ')[0] ?? '');
      const perInstance = metricNamesIn(t.expr ?? '').some((n) => carried.get(n)?.has('qstash_id'));
      if (perInstance && !aggregated && !legend.includes('{{qstash_id}}')) {
        wrong.push(`${t.panel} ${t.refId}: QStash instances not told apart (${legend})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('uses $__rate_interval for every range it rates over, and no other range', () => {
    const wrong: string[] = [];
    for (const t of targets) {
      const expr = t.expr ?? '';
      const ranges = [...expr.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]);
      if (ranges.some((r) => r !== '$__rate_interval')) wrong.push(`${t.panel}: ${expr}`);
      if (/\b(rate|irate|increase)\s*\(/.test(expr) && ranges.length === 0) wrong.push(`${t.panel}: ${expr}`);
    }
    expect(wrong).toEqual([]);
  });

  it('filters every selector by the job variable', () => {
    const wrong: string[] = [];
    for (const t of targets) {
      for (const s of selectorsIn(t.expr ?? '')) {
        if (!s.matchers.includes('job=~"$job"')) wrong.push(`${t.panel}: ${s.name}${s.matchers}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names only metrics that the exporter exports (or that alerts.yml records)', () => {
    const { names: exported, from } = exportedNames();
    expect(exported.size, `metric names found in ${from}`).toBeGreaterThan(20);
    const known = new Set([...exported, ...recordingRuleNames(), ...NOT_YET_EXPORTED]);
    const exprs = [
      ...targets.map((t) => ({ where: `panel "${t.panel}" ${t.refId}`, expr: t.expr ?? '' })),
      ...dashboard.templating.list
        .filter((v) => v.type === 'query')
        .map((v) => ({
          where: `variable ${v.name}`,
          expr: variableQuery(v).replace(/^label_values\((.*),[^,]*\)$/, '$1'),
        })),
    ];
    const unknown: string[] = [];
    let seen = 0;
    for (const { where, expr } of exprs) {
      const names = metricNamesIn(expr);
      seen += names.length;
      for (const n of names) if (!known.has(n)) unknown.push(`${where}: ${n} (not in ${from})`);
    }
    expect(seen).toBeGreaterThan(exprs.length);
    expect(unknown).toEqual([]);
  });
});

describe('prometheus/alerts.yml and the lint itself', () => {
  it('has rules in prometheus/alerts.yml that name only exported or recorded metrics (and up)', () => {
    const { names: exported, from } = exportedNames();
    const known = new Set([...exported, ...recordingRuleNames(), 'up', ...NOT_YET_EXPORTED]);
    const unknown = ruleGroups()
      .flatMap((g) => g.rules)
      .flatMap((r) => metricNamesIn(r.expr).map((n) => ({ rule: r.alert ?? r.record ?? '?', n })))
      .filter(({ n }) => !known.has(n))
      .map(({ rule, n }) => `${rule}: ${n} (not in ${from})`);
    expect(unknown).toEqual([]);
  });

  it('allows only names not exported yet: one that lands leaves NOT_YET_EXPORTED', () => {
    const { names: exported } = exportedNames();
    expect(NOT_YET_EXPORTED.filter((name) => exported.has(name))).toEqual([]);
  });

  it('finds metric names in PromQL the way the lint above relies on', () => {
    expect(
      metricNamesIn(
        'sum by (account, source) (rate(upstash_a_total{job=~"$job", x="b{c}"}[$__rate_interval])) / on (account) group_left (source) upstash_b > 0.5 or vector(1) * time()',
      ),
    ).toEqual(['upstash_a_total', 'upstash_b']);
    expect(metricNamesIn('topk(10, level:metric:ops) - 1e3 offset 5m')).toEqual(['level:metric:ops']);
  });
});
