import type { Registry } from 'prom-client';
import { ALL_FAMILIES, type FamilyPredicate } from './family-filter.js';
import type { Exemplar } from './sample.js';

/** The two exposition formats we serve. */
export type Format = 'text' | 'openmetrics';

export type MetricType = 'gauge' | 'counter' | 'histogram' | 'summary';

/** A metric family as prom-client's `metric.get()` describes it. */
export interface FamilySnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly values: readonly {
    readonly value: number;
    readonly labels: Readonly<Record<string, string | number | undefined>>;
    readonly metricName?: string | undefined;
  }[];
}

/** The most characters an exemplar's label names and values may hold together (OpenMetrics 1.0). */
export const EXEMPLAR_LABEL_CHARS = 128;

/**
 * An exemplar as it follows a sample in OpenMetrics (` # {labels} value timestamp`), or undefined
 * when its labels pass {@link EXEMPLAR_LABEL_CHARS}: left out, never cut, for a cut ID names another
 * event (docs/metrics.md, Exemplars).
 */
export function formatExemplar(exemplar: Exemplar): string | undefined {
  let chars = 0;
  for (const [name, value] of exemplar.labels) chars += Array.from(name).length + Array.from(value).length;
  if (chars > EXEMPLAR_LABEL_CHARS) return undefined;
  return ` # ${formatLabels(exemplar.labels)} ${formatValue(exemplar.value)} ${formatValue(exemplar.timestamp)}`;
}

/** Escapes a label value for both formats: backslash, double quote and line feed. */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value)
    ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
    : value;
}

/** Escapes HELP text (backslash and line feed in both formats; OpenMetrics also escapes quotes). */
function escapeHelp(text: string, format: Format): string {
  const escaped = text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
  return format === 'openmetrics' ? escaped.replace(/"/g, '\\"') : escaped;
}

/** A sample value as both formats spell it. */
export function formatValue(value: number): string {
  // String spells NaN as both formats do, but not the infinities.
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `{a="x",b="y"}`, or nothing when there are no labels. */
export function formatLabels(labels: readonly (readonly [string, string])[]): string {
  if (labels.length === 0) return '';
  let out = '';
  for (const [name, value] of labels) out += `${out === '' ? '{' : ','}${name}="${escapeLabelValue(value)}"`;
  return `${out}}`;
}

/**
 * The `# HELP` and `# TYPE` lines of a family. OpenMetrics names a counter family without its
 * `_total` suffix (the samples keep it); the text format names it as the samples are named.
 */
export function familyHeader(name: string, help: string, type: MetricType, format: Format): string {
  const family = format === 'openmetrics' && type === 'counter' ? name.replace(/_total$/, '') : name;
  return `# HELP ${family} ${escapeHelp(help, format)}\n# TYPE ${family} ${type}\n`;
}

/** Renders prom-client families (our own counters, process and Node.js metrics) in either format. */
export function renderFamilies(families: readonly FamilySnapshot[], format: Format): string {
  let out = '';
  for (const family of families) {
    out += familyHeader(family.name, family.help, family.type, format);
    const counterBase = family.type === 'counter' ? family.name.replace(/_total$/, '') : undefined;
    for (const sample of family.values) {
      let name = sample.metricName ?? family.name;
      if (counterBase !== undefined && format === 'openmetrics') name = `${counterBase}_total`;
      const labels = Object.entries(sample.labels)
        .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
        .map(([key, value]) => [key, String(value)] as const);
      out += `${name}${formatLabels(labels)} ${formatValue(sample.value)}\n`;
    }
  }
  return out;
}

/**
 * Renders the metrics of a prom-client registry in the requested format: those `keep` shows (a family
 * left out is not even collected).
 */
export async function renderRegistry(
  registry: Registry,
  format: Format,
  keep: FamilyPredicate = ALL_FAMILIES,
): Promise<string> {
  // The registry holds Metric instances; its typings only admit to the plain-object part of them.
  const metrics = registry.getMetricsAsArray() as unknown as {
    readonly name: string;
    get(): Promise<FamilySnapshot> | FamilySnapshot;
  }[];
  const shown = metrics.filter((metric) => keep(metric.name));
  const families = await Promise.all(shown.map(async (metric) => metric.get()));
  return renderFamilies(families, format);
}
