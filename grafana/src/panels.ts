// One function per kind of panel, each with the one style every panel of that kind shares, so that a
// panel is its title, description, size, unit and queries. Every panel and query takes its data source
// from the `datasource` variable, so nothing needs editing after import.
import * as bargauge from '@grafana/grafana-foundation-sdk/bargauge';
import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

export const DATASOURCE: dashboard.DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

/** One query of a panel, and the legend of its series. */
export interface Query {
  readonly expr: string;
  readonly legend?: string;
  /** Whether the panel also shows the series' exemplars (docs/dashboards.md, From an exemplar to the Upstash console). */
  readonly exemplar?: boolean;
}

/** A query, and its legend when Grafana's default (the series' labels) would not do. */
export function q(expr: string, legend?: string): Query {
  return legend === undefined ? { expr } : { expr, legend };
}

/** A query whose panel shows the exemplars of the series it reads: a message's or a run's ID. */
export function qe(expr: string, legend: string): Query {
  return { expr, legend, exemplar: true };
}

/** A base colour, then `[value, colour]` from which on each applies. */
export type Steps = readonly [string, ...(readonly [number, string])[]];

/** What every panel says: its place is its size, in the order the row lists it. */
export interface Panel {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  /** Width (of 24) and height, in grid units. */
  readonly size: readonly [number, number];
  readonly queries: readonly Query[];
  /** Colour steps; null for none. Green throughout when absent. */
  readonly steps?: Steps | null;
  readonly min?: number;
  readonly max?: number;
}

/** An error ratio's graph: a half-width panel from 0 to 1, red from 5 % on, with its line drawn. */
export const ERROR_RATIO = {
  unit: 'percentunit',
  size: [12, 8],
  min: 0,
  max: 1,
  steps: ['green', [0.05, 'red']],
  thresholdLine: true,
} as const;

type Kind = 'range' | 'instant' | 'table';

type Builder = timeseries.PanelBuilder | stat.PanelBuilder | bargauge.PanelBuilder | table.PanelBuilder;

function target(query: Query, index: number, kind: Kind): prometheus.DataqueryBuilder {
  const t = new prometheus.DataqueryBuilder()
    .datasource(DATASOURCE)
    .refId(String.fromCharCode(65 + index))
    .expr(query.expr)
    .editorMode(prometheus.QueryEditorMode.Code);
  if (query.legend !== undefined) t.legendFormat(query.legend);
  if (query.exemplar === true) t.exemplar(true);
  if (kind === 'range') return t.range();
  t.instant();
  return kind === 'table' ? t.format(prometheus.PromQueryFormat.Table) : t;
}

/** What all kinds share: title, text, data source, size, unit, limits, colours and queries. */
function shared<B extends Builder>(b: B, p: Panel, kind: Kind): B {
  b.title(p.title).description(p.description).datasource(DATASOURCE).span(p.size[0]).height(p.size[1]);
  b.unit(p.unit);
  if (p.min !== undefined) b.min(p.min);
  if (p.max !== undefined) b.max(p.max);
  const steps = p.steps === undefined ? (['green'] as const) : p.steps;
  if (steps !== null) {
    const [base, ...above] = steps;
    b.thresholds(
      new dashboard.ThresholdsConfigBuilder()
        .mode(dashboard.ThresholdsMode.Absolute)
        .steps([{ color: base, value: null }, ...above.map(([value, color]) => ({ color, value }))]),
    );
  }
  p.queries.forEach((query, i) => b.withTarget(target(query, i, kind)));
  return b;
}

function colors(mode: dashboard.FieldColorModeId): dashboard.FieldColorBuilder {
  return new dashboard.FieldColorBuilder().mode(mode);
}

function lastValue(): common.ReduceDataOptionsBuilder {
  return new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).fields('').values(false);
}

/** Series over time, with a table legend of the last and largest values. */
export function graph(
  p: Panel & { readonly fill?: number; readonly stacked?: boolean; readonly thresholdLine?: boolean },
): timeseries.PanelBuilder {
  const b = shared(new timeseries.PanelBuilder(), p, 'range')
    .colorScheme(colors(dashboard.FieldColorModeId.PaletteClassic))
    .drawStyle(common.GraphDrawStyle.Line)
    .lineWidth(1)
    .fillOpacity(p.fill ?? 0)
    .showPoints(common.VisibilityMode.Never)
    .spanNulls(false)
    .stacking(
      new common.StackingConfigBuilder()
        .mode(p.stacked === true ? common.StackingMode.Normal : common.StackingMode.None)
        .group('A'),
    )
    .axisPlacement(common.AxisPlacement.Auto)
    .gradientMode(common.GraphGradientMode.None)
    .lineInterpolation(common.LineInterpolation.Linear)
    .legend(
      new common.VizLegendOptionsBuilder()
        .displayMode(common.LegendDisplayMode.Table)
        .placement(common.LegendPlacement.Bottom)
        .showLegend(true)
        .calcs(['lastNotNull', 'max']),
    )
    .tooltip(
      new common.VizTooltipOptionsBuilder()
        .mode(common.TooltipDisplayMode.Multi)
        .sort(common.SortOrder.Descending),
    );
  if (p.thresholdLine === true)
    b.thresholdsStyle(
      new common.GraphThresholdsStyleConfigBuilder().mode(common.GraphTresholdsStyleMode.Line),
    );
  return b;
}

/** Big numbers, the last value of each series. */
export function stats(
  p: Panel & {
    readonly color?: common.BigValueColorMode;
    readonly text?: common.BigValueTextMode;
    readonly mappings?: dashboard.ValueMapping[];
  },
): stat.PanelBuilder {
  const b = shared(new stat.PanelBuilder(), p, 'instant')
    .colorScheme(colors(dashboard.FieldColorModeId.Thresholds))
    .reduceOptions(lastValue())
    .colorMode(p.color ?? common.BigValueColorMode.Value)
    .graphMode(common.BigValueGraphMode.None)
    .justifyMode(common.BigValueJustifyMode.Auto)
    .orientation(common.VizOrientation.Auto)
    .textMode(p.text ?? common.BigValueTextMode.Auto);
  if (p.mappings !== undefined) b.mappings(p.mappings);
  return b;
}

/** Horizontal bars, one per series, from 0. */
export function bars(p: Panel): bargauge.PanelBuilder {
  return shared(new bargauge.PanelBuilder(), { min: 0, ...p }, 'instant')
    .colorScheme(colors(dashboard.FieldColorModeId.Thresholds))
    .reduceOptions(lastValue())
    .orientation(common.VizOrientation.Horizontal)
    .displayMode(common.BarGaugeDisplayMode.Gradient)
    .showUnfilled(true)
    .valueMode(common.BarGaugeValueMode.Color)
    .minVizHeight(16)
    .minVizWidth(8);
}

/**
 * A table of the queries' latest values, rows sorted by `sortBy`. `columns` name the value column of
 * each query (`Value #B` is query B's) with its unit; `hide` leaves label columns out.
 */
export function rowsOf(
  p: Panel & {
    readonly sortBy: string;
    readonly columns?: Readonly<Record<string, readonly [string, string]>>;
    readonly transformations?: dashboard.DataTransformerConfig[];
  },
): table.PanelBuilder {
  const b = shared(new table.PanelBuilder(), { steps: null, ...p }, 'table')
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .footer(new common.TableFooterOptionsBuilder().show(false).reducer(['sum']).fields([]))
    .sortBy([new common.TableSortByFieldStateBuilder().displayName(p.sortBy).desc(false)]);
  for (const [refId, [unit, name]] of Object.entries(p.columns ?? {}))
    b.overrideByName(`Value #${refId}`, [
      { id: 'unit', value: unit },
      { id: 'displayName', value: name },
    ]);
  for (const t of p.transformations ?? []) b.withTransformation(t);
  return b;
}

/** A table of databases by `feature` (upstash_redis_feature_enabled): a row per database, 1 on, 0 off. */
export function featureMatrix(p: Panel): table.PanelBuilder {
  return rowsOf({
    ...p,
    sortBy: 'database_name',
    transformations: [
      {
        id: 'groupingToMatrix',
        options: { columnField: 'feature', rowField: 'database_name', valueField: 'Value' },
      },
    ],
  });
}

/** The queries of a table merged into one row per series, the columns named in `hide` left out. */
export function merged(hide: readonly string[]): dashboard.DataTransformerConfig[] {
  return [
    { id: 'merge', options: {} },
    {
      id: 'organize',
      options: {
        excludeByName: Object.fromEntries(hide.map((h) => [h, true])),
        indexByName: {},
        renameByName: {},
      },
    },
  ];
}

/** A row: a title over its panels, laid out left to right, a new line when 24 columns are full. */
export interface Row {
  readonly title: string;
  readonly repeat?: string;
  readonly panels: readonly cog.Builder<dashboard.Panel>[];
}
