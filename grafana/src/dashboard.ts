// A dashboard of the project: its settings, its variables (`datasource`, `job`, `account`, then its
// own) and its rows, built with Grafana's SDK into the JSON that users import.
import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { DATASOURCE, type Row } from './panels.js';
import { byJob, labelValues } from './promql.js';

/** A query variable: multi-value with All (`.*`), so queries match it with `=~`. */
export interface Variable {
  readonly name: string;
  readonly label: string;
  readonly query: string;
  readonly description?: string;
  /** Grafana's named groups `text` and `value`: what the drop-down shows, and what queries get. */
  readonly regex?: string;
}

function variable(v: Variable): cog.Builder<dashboard.VariableModel> {
  // The SDK gives every variable the same id (a zero UUID); Grafana's own models use the name, unique.
  const b = new dashboard.QueryVariableBuilder(v.name)
    .id(v.name)
    .label(v.label)
    .datasource(DATASOURCE)
    // qryType is the Prometheus variable editor's kind: 1 label values, 5 a classic query (query_result).
    .query({ query: v.query, refId: `${v.name}-query`, qryType: v.query.startsWith('query_result(') ? 5 : 1 })
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .includeAll(true)
    .multi(true)
    .allValue('.*')
    .sort(dashboard.VariableSort.AlphabeticalAsc);
  if (v.regex !== undefined) b.regex(v.regex);
  if (v.description !== undefined) b.description(v.description);
  // The editor shows `definition` in the list of variables; the SDK has no setter for it.
  const built: dashboard.VariableModel & { definition: string } = { ...b.build(), definition: v.query };
  return { build: () => built };
}

/** The variables every dashboard starts with: the data source, then the jobs and their accounts. */
const SHARED: readonly Variable[] = [
  { name: 'job', label: 'Job', query: labelValues('upstash_exporter_build_info', 'job') },
  { name: 'account', label: 'Account', query: labelValues(byJob('upstash_up'), 'account') },
];

export interface Spec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly from: string;
  readonly links?: readonly { title: string; url: string }[];
  readonly variables: readonly Variable[];
  readonly rows: readonly Row[];
}

/** The dashboard as JSON: the SDK's model, panels numbered in order (ids are what Grafana links to). */
export function build(spec: Spec): dashboard.Dashboard {
  const b = new dashboard.DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags([...spec.tags])
    .editable()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .timezone('browser')
    .time({ from: spec.from, to: 'now' })
    .refresh('1m')
    .version(1)
    .annotations([])
    .withVariable(
      new dashboard.DatasourceVariableBuilder('datasource')
        .id('datasource')
        .label('Data source')
        .type('prometheus'),
    );
  for (const v of [...SHARED, ...spec.variables]) b.withVariable(variable(v));
  for (const l of spec.links ?? [])
    b.link(new dashboard.DashboardLinkBuilder(l.title).type(dashboard.DashboardLinkType.Link).url(l.url));
  for (const row of spec.rows) {
    const r = new dashboard.RowBuilder(row.title);
    if (row.repeat !== undefined) r.repeat(row.repeat);
    b.withRow(r);
    for (const p of row.panels) b.withPanel(p);
  }
  const out = b.build();
  // The SDK says 36; the panels are already in the form of 39, the version the hand-written files had,
  // which spares Grafana its migrations on every load.
  out.schemaVersion = 39;
  (out.panels ?? []).forEach((p, i) => (p.id = i + 1));
  return out;
}
