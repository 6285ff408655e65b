// grafana/dashboards/upstash-platform.json: Vector and Search indexes, one row per product with the
// same panels.
import type { Spec } from './dashboard.js';
import { graph, merged, q, rowsOf, stats, type Row } from './panels.js';
import { SEARCH_INDEX, VECTOR_INDEX, info, labelValues, named, perLimit, sel, type Names } from './promql.js';

interface Product {
  /** As in the metric names: `upstash_${prefix}_…`. */
  readonly prefix: 'vector' | 'search';
  readonly name: string;
  readonly names: Names;
}

const VECTOR: Product = { prefix: 'vector', name: 'Vector', names: VECTOR_INDEX };
const SEARCH: Product = { prefix: 'search', name: 'Search', names: SEARCH_INDEX };

/** The variable of a product's chosen index names. */
const variableOf = (p: Product) => `${p.prefix}_index`;

const NEAR_LIMIT = ['green', [0.8, 'red']] as const;

function row(p: Product): Row {
  const metric = (name: string) => `upstash_${p.prefix}_${name}`;
  const chosen = `index_name=~"$${variableOf(p)}"`;
  /** A metric of the chosen indexes, each series named. */
  const ofChosen = (expr: string) => named(expr, p.names, chosen);
  const byIndex = (name: string) => ofChosen(sel(metric(name)));
  const ratio = (value: string, limit: string) =>
    ofChosen(perLimit(sel(metric(value)), sel(metric(limit)), p.names));
  /** Usage against a daily or monthly limit, where the index has one; its alert is named after the limit. */
  const limit = (title: string, value: string, max: string, what: string) => {
    const field = max.replace(/_bytes$/, ''); // as Upstash's API names it
    const alert = field.replace(/^max/, '').replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
    return graph({
      title,
      description: `${what} over the index's ${field}. Indexes without a limit (-1) are left out. UpstashIndex${alert}NearLimit fires above 80 %.`,
      unit: 'percentunit',
      size: [8, 8],
      steps: NEAR_LIMIT,
      thresholdLine: true,
      queries: [q(ratio(value, max), '{{index_name}}')],
    });
  };
  const latency = (kind: 'query' | 'update') => ({
    title: `${kind === 'query' ? 'Query' : 'Update'} latency`,
    description: `Latest ${kind} latency, mean and 99th percentile, as Upstash reports it (Upstash states no unit).`,
    unit: 'short',
    size: [8, 8] as const,
    steps: null,
    queries: [
      q(byIndex(`${kind}_latency_p99`), '{{index_name}} p99'),
      q(byIndex(`${kind}_latency_mean`), '{{index_name}} mean'),
    ],
  });
  return {
    title: `${p.name} indexes`,
    panels: [
      stats({
        title: `${p.name} indexes`,
        description: `${p.name} indexes the account lists (${metric('indexes')}), and how many are not polled because of limits.max_indexes.`,
        unit: 'short',
        size: [6, 6],
        queries: (
          [
            ['indexes', 'listed'],
            ['indexes_omitted', 'omitted'],
          ] as const
        ).map(([name, legend]) => q(`sum by (account) (${sel(metric(name))})`, `{{account}} ${legend}`)),
      }),
      rowsOf({
        title: `${p.name} indexes and limits`,
        description: `Every polled ${p.name} index by name, with its plan, region and limits. A limit of -1 is Upstash's "unlimited".`,
        unit: 'short',
        size: [18, 6],
        sortBy: 'index_name',
        columns: {
          B: ['short', 'Max vectors'],
          C: ['short', 'Max daily queries'],
          D: ['short', 'Max daily updates'],
          E: ['bytes', 'Max monthly bandwidth'],
          F: ['short', 'Vectors'],
          G: ['currencyUSD', 'Cost this month'],
        },
        transformations: merged(['Time', 'Value #A', '__name__', 'job', 'instance']),
        queries: [
          q(info(p.names, chosen)),
          ...[
            'max_vectors',
            'max_daily_queries',
            'max_daily_updates',
            'max_monthly_bandwidth_bytes',
            'vectors',
            'monthly_cost_dollars',
          ].map((name) => q(byIndex(name))),
        ],
      }),
      limit('Daily queries / limit', 'daily_queries', 'max_daily_queries', 'Queries today'),
      limit('Daily updates / limit', 'daily_updates', 'max_daily_updates', 'Updates today'),
      limit(
        'Monthly bandwidth / limit',
        'monthly_bandwidth_bytes',
        'max_monthly_bandwidth_bytes',
        'Bandwidth this month',
      ),
      graph({
        title: 'Pending vectors',
        description:
          'Vectors waiting to be indexed. A backlog that keeps growing (UpstashIndexPendingVectorsGrowing) means queries miss the newest upserts.',
        unit: 'short',
        size: [8, 8],
        steps: null,
        queries: [q(byIndex('pending_vectors'), '{{index_name}}')],
      }),
      graph({
        title: 'Daily queries and updates',
        description: 'Queries and updates today (they restart at midnight UTC).',
        unit: 'short',
        size: [8, 8],
        steps: null,
        queries: [
          q(byIndex('daily_queries'), '{{index_name}} queries'),
          q(byIndex('daily_updates'), '{{index_name}} updates'),
        ],
      }),
      graph({
        title: 'Vectors / max vectors',
        description: 'Vectors in the index over its max_vector_count.',
        unit: 'percentunit',
        size: [8, 8],
        steps: null,
        queries: [q(ratio('vectors', 'max_vectors'), '{{index_name}}')],
      }),
      graph(latency('query')),
      graph(latency('update')),
      graph({
        title: 'Storage',
        description: 'Storage the index uses now.',
        unit: 'bytes',
        size: [8, 8],
        steps: null,
        queries: [q(byIndex('storage_bytes'), '{{index_name}} storage')],
      }),
    ],
  };
}

export const platform: Spec = {
  uid: 'upstash-exporter-platform',
  title: 'Upstash Vector and Search',
  description:
    'Vector and Search indexes of the Upstash accounts: usage against their daily and monthly limits, the indexing backlog, latency and cost, as upstash-exporter polls them.',
  tags: ['upstash', 'vector', 'search', 'prometheus'],
  from: 'now-24h',
  links: [{ title: 'Upstash', url: '/d/upstash-exporter' }],
  variables: [VECTOR, SEARCH].map((p) => ({
    name: variableOf(p),
    label: `${p.name} index`,
    query: labelValues(info(p.names), 'index_name'),
    description: `${p.name} indexes by name, from upstash_${p.prefix}_index_info (the ${p.prefix}_indexes source).`,
  })),
  rows: [row(VECTOR), row(SEARCH)],
};
