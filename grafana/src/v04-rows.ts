// Where deliveries fail and the workflows (after the 'QStash delivery' row of
// upstash.ts), and the account's safety (at its end).
import type { Row } from './panels.js';
import { bars, ERROR_RATIO, featureMatrix, graph, q, qe, stats } from './panels.js';
import { chosenDatabases, sel, sumRate } from './promql.js';

/** What a panel showing exemplars says of them (docs/dashboards.md, From an exemplar to the Upstash console). */
export const EXEMPLARS =
  "Its dots are exemplars: hover one for the ID of the newest event counted in that series (a message's or a workflow run's), to look up in the Upstash console.";

export const deliveries: Row = {
  title: 'Where deliveries fail',
  panels: [
    graph({
      title: 'Delivery error ratio by destination',
      description:
        "Share of the delivery attempts to each destination that failed over 5 minutes: ERROR events of qstash_logs over those and the DELIVERED events of qstash_deliveries (recorded by prometheus/alerts.yml). 1 where only errors are counted: list qstash_deliveries in the entry's sources. UpstashQStashDestinationErrorRatio fires above 5 % (the red line) where a destination has at least 5 attempts a minute.",
      ...ERROR_RATIO,
      queries: [
        q(
          sel('account_destination:upstash_qstash_delivery_error_ratio:rate5m'),
          '{{account}} {{destination}}',
        ),
      ],
    }),
    graph({
      title: 'Delivery errors by destination and code',
      description: `Failed delivery attempts per second (upstash_qstash_delivery_errors_total: ERROR events of qstash_logs), by destination (the URL's origin) and response code (empty when none came, e.g. a timeout). UpstashQStashDestinationFailing fires on them. ${EXEMPLARS}`,
      unit: 'ops',
      size: [12, 8],
      queries: [
        qe(
          sumRate('destination, code', 'upstash_qstash_delivery_errors_total'),
          '{{account}} {{destination}} {{code}}',
        ),
      ],
    }),
    graph({
      title: 'Failed deliveries by queue, URL group and schedule',
      description:
        'Messages that exhausted their retries, per second (upstash_qstash_deliveries_failed_total: FAILED events). UpstashQStashDeliveriesFailed fires on any.',
      unit: 'ops',
      size: [12, 8],
      queries: [
        q(
          sumRate('destination, queue, url_group, schedule_id', 'upstash_qstash_deliveries_failed_total'),
          '{{account}} {{destination}} {{queue}}{{url_group}}{{schedule_id}}',
        ),
      ],
    }),
    bars({
      title: 'Top destinations by delivery errors',
      description: 'The ten destinations with the most failed delivery attempts per second now.',
      unit: 'ops',
      size: [12, 8],
      queries: [
        q(
          `topk(10, ${sumRate('destination', 'upstash_qstash_delivery_errors_total')})`,
          '{{account}} {{destination}}',
        ),
      ],
    }),
    graph({
      title: 'Event logs not read',
      description:
        'Seconds of the event logs per second that a poll did not read because of limits.max_event_pages (…_unread_seconds_total); UpstashEventsUnread fires while it grows.',
      unit: 'percentunit',
      size: [12, 8],
      queries: [
        q(sumRate('state', 'upstash_qstash_logs_unread_seconds_total'), '{{account}} qstash_logs {{state}}'),
        q(
          sumRate('state', 'upstash_workflow_runs_unread_seconds_total'),
          '{{account}} workflow_runs {{state}}',
        ),
        q(sumRate('state', 'upstash_audit_log_unread_seconds_total'), '{{account}} audit_logs'),
      ],
    }),
  ],
};

const quantile = (phi: number) =>
  `histogram_quantile(${phi}, ${sumRate('workflow, le', 'upstash_workflow_run_duration_seconds_bucket')})`;

export const workflows: Row = {
  title: 'Workflows',
  panels: [
    graph({
      title: 'Workflow runs finished by outcome',
      description: `Runs finished per second, by workflow and state (upstash_workflow_runs_finished_total). ${EXEMPLARS}`,
      unit: 'ops',
      size: [8, 8],
      queries: [
        qe(
          sumRate('workflow, state', 'upstash_workflow_runs_finished_total'),
          '{{account}} {{workflow}} {{state}}',
        ),
      ],
    }),
    graph({
      title: 'Workflow run duration',
      description: `Median, 90th and 99th percentile of the runs finished, from upstash_workflow_run_duration_seconds. ${EXEMPLARS}`,
      unit: 's',
      size: [8, 8],
      queries: [0.5, 0.9, 0.99].map((phi) => qe(quantile(phi), `{{account}} {{workflow}} p${phi * 100}`)),
    }),
    stats({
      title: 'Runs in progress',
      description: 'Runs started and not finished, by workflow (upstash_workflow_runs_in_progress).',
      unit: 'short',
      size: [4, 8],
      queries: [q(sel('upstash_workflow_runs_in_progress'), '{{account}} {{workflow}}')],
    }),
    graph({
      title: 'Oldest run in progress',
      description:
        'How long the oldest run in progress has run (upstash_workflow_oldest_run_start_timestamp_seconds); UpstashWorkflowRunStuck fires above 1 h.',
      unit: 's',
      size: [4, 8],
      queries: [
        q(
          `time() - ${sel('upstash_workflow_oldest_run_start_timestamp_seconds')}`,
          '{{account}} {{workflow}}',
        ),
      ],
    }),
    graph({
      title: 'Failure callbacks that failed',
      description: `Failure functions that failed per interval, by workflow (upstash_workflow_failure_callbacks_total), and failed runs in the Workflow DLQ by their failure callback's state (upstash_workflow_dlq_failure_callbacks); UpstashWorkflowFailureCallbackFailing fires on either's CALLBACK_FAIL. ${EXEMPLARS}`,
      unit: 'short',
      size: [24, 7],
      queries: [
        qe(
          `sum by (account, workflow, state) (increase(${sel('upstash_workflow_failure_callbacks_total', 'state="CALLBACK_FAIL"')}[$__rate_interval])) or label_replace(sum by (account, state) (${sel('upstash_workflow_dlq_failure_callbacks')}), "workflow", "Workflow DLQ", "", "")`,
          '{{account}} {{workflow}} {{state}}',
        ),
      ],
    }),
  ],
};

export const safety: Row = {
  title: 'Account safety',
  panels: [
    graph({
      title: 'Audit events by action',
      description: 'Audit-log events per second by action and by how they came (upstash_audit_events_total).',
      unit: 'ops',
      size: [12, 8],
      queries: [
        q(sumRate('action, via', 'upstash_audit_events_total'), '{{account}} {{action}} via {{via}}'),
      ],
    }),
    featureMatrix({
      title: 'Network restrictions',
      description:
        'Per database, whether an IP allowlist, VPC peering or Private Link is on (upstash_redis_feature_enabled); UpstashRedisNoNetworkRestriction says when none is.',
      unit: 'short',
      size: [12, 8],
      queries: [
        q(
          chosenDatabases(
            sel('upstash_redis_feature_enabled', 'feature=~"ip_allowlist|vpc_peering|private_link"'),
          ),
        ),
      ],
    }),
    bars({
      title: 'Team members by role',
      description:
        'Members of each team by role (upstash_team_members); UpstashTeamAdminsChanged says when owners or admins change.',
      unit: 'short',
      size: [12, 8],
      queries: [q(sel('upstash_team_members'), '{{account}} {{team_name}} {{role}}')],
    }),
    stats({
      title: 'QStash egress IP ranges',
      description:
        'How many address ranges QStash sends its requests from (upstash_qstash_egress_ip_ranges), and each range (upstash_qstash_egress_ip_range_info); UpstashQStashEgressIpsChanged says when one appears or goes.',
      unit: 'short',
      size: [12, 8],
      queries: [
        q(sel('upstash_qstash_egress_ip_ranges'), '{{account}} ranges'),
        q(sel('upstash_qstash_egress_ip_range_info'), '{{account}} {{cidr}}'),
      ],
    }),
  ],
};
