// What a dashboard says, without how it is laid out or styled: its variables and, panel by panel in order,
// the kind, title, unit, thresholds and every query. The move of the dashboards into code
// (grafana/src) is checked against the summary of the hand-written files, taken before they were
// replaced (test/fixtures/dashboard-summary.json).

interface Target {
  refId?: string;
  expr?: string;
  legendFormat?: string;
  instant?: boolean;
  format?: string;
}

interface Panel {
  type: string;
  title?: string;
  description?: string;
  repeat?: string;
  gridPos?: { h: number; w: number };
  fieldConfig?: {
    defaults?: {
      unit?: string;
      min?: number;
      max?: number;
      thresholds?: { steps?: { color: string; value: number | null }[] };
    };
    overrides?: { matcher: { options: string }; properties: { id: string; value: unknown }[] }[];
  };
  targets?: Target[];
  panels?: Panel[];
}

interface Variable {
  name: string;
  label?: string;
  type: string;
  query?: string | { query?: string };
  regex?: string;
  multi?: boolean;
  includeAll?: boolean;
  allValue?: string;
  description?: string;
}

export interface Dashboard {
  uid?: string;
  title?: string;
  description?: string;
  tags?: string[];
  panels: Panel[];
  templating: { list: Variable[] };
}

/** The summary of one dashboard, as plain JSON (the fixture's shape). */
export function summarize(d: Dashboard): unknown {
  const panels = d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
  return {
    uid: d.uid,
    title: d.title,
    description: d.description,
    tags: d.tags,
    variables: d.templating.list.map((v) => ({
      name: v.name,
      label: v.label,
      type: v.type,
      query: typeof v.query === 'string' ? v.query : v.query?.query,
      regex: v.regex === '' ? undefined : v.regex,
      multi: v.multi,
      includeAll: v.includeAll,
      allValue: v.allValue,
      description: v.description,
    })),
    panels: panels.map((p) => {
      const defaults = p.fieldConfig?.defaults;
      return {
        type: p.type,
        title: p.title,
        description: p.description,
        repeat: p.repeat,
        size: p.type === 'row' ? undefined : `${p.gridPos?.w}x${p.gridPos?.h}`,
        unit: defaults?.unit,
        min: defaults?.min,
        max: defaults?.max,
        thresholds: defaults?.thresholds?.steps?.map((s) => `${s.color}:${s.value}`).join(' '),
        columns: p.fieldConfig?.overrides?.length
          ? p.fieldConfig.overrides.map(
              (o) =>
                `${o.matcher.options}: ${o.properties.map((x) => `${x.id}=${String(x.value)}`).join(', ')}`,
            )
          : undefined,
        queries: p.targets?.map((t) => ({
          refId: t.refId,
          expr: t.expr,
          legend: t.legendFormat === '' ? undefined : t.legendFormat,
          kind: t.format === 'table' ? 'table' : t.instant === true ? 'instant' : 'range',
        })),
      };
    }),
  };
}
