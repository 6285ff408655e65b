// The row "By your labels" (the last of upstash.ts): the families counted by the label
// values a qstash entry lists (docs/metrics.md, Your own labels), filtered by the `label` variable.
import type { Variable } from './dashboard.js';
import type { Row } from './panels.js';
import { ERROR_RATIO, graph, q } from './panels.js';
import { labelValues, sel, sumRate } from './promql.js';

const LABEL = 'label=~"$label"';

/** The `label` variable: the label values counted, of every `…_label_…` family. */
export const label: Variable = {
  name: 'label',
  label: 'Label',
  query: labelValues(sel('', '__name__=~"upstash_(qstash|workflow)_label_.+"'), 'label'),
  description:
    "The Upstash label values counted (a qstash entry's labels:), from the upstash_…_label_… families.",
};

const labelRate = (by: string, metric: string) => sumRate(by, metric, LABEL);

export const byLabel: Row = {
  title: 'By your labels',
  panels: [
    graph({
      title: 'Delivery error ratio by label',
      description:
        "Share of the delivery attempts of the messages carrying each label that failed over 5 minutes (recorded by prometheus/alerts.yml: ERROR events over those and DELIVERED events). 1 where only errors are counted: list qstash_deliveries in the entry's sources. A message with two listed labels counts under each.",
      ...ERROR_RATIO,
      queries: [
        q(sel('account_label:upstash_qstash_delivery_error_ratio:rate5m', LABEL), '{{account}} {{label}}'),
      ],
    }),
    graph({
      title: 'Delivery errors by label',
      description:
        'Failed delivery attempts (ERROR) and messages that exhausted their retries (FAILED) per second, by label (upstash_qstash_label_delivery_errors_total).',
      unit: 'ops',
      size: [12, 8],
      queries: [
        q(
          labelRate('label, state', 'upstash_qstash_label_delivery_errors_total'),
          '{{account}} {{label}} {{state}}',
        ),
      ],
    }),
    graph({
      title: 'Deliveries by label',
      description:
        'Messages delivered per second, by label (upstash_qstash_label_deliveries_total; qstash_deliveries must be listed).',
      unit: 'ops',
      size: [12, 8],
      queries: [q(labelRate('label', 'upstash_qstash_label_deliveries_total'), '{{account}} {{label}}')],
    }),
    graph({
      title: 'Workflow runs finished by label and outcome',
      description:
        'Runs finished per second, by label and state (upstash_workflow_label_runs_finished_total).',
      unit: 'ops',
      size: [12, 8],
      queries: [
        q(
          labelRate('label, state', 'upstash_workflow_label_runs_finished_total'),
          '{{account}} {{label}} {{state}}',
        ),
      ],
    }),
  ],
};
