// grafana/dashboards/upstash.json: QStash, Redis and the exporter's health.
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import type { Spec } from './dashboard.js';
import { byLabel, label } from './label-rows.js';
import { deliveries, safety, workflows } from './v04-rows.js';
import { bars, featureMatrix, graph, merged, q, rowsOf, stats } from './panels.js';
import {
  CHOSEN_DATABASES,
  DATABASE,
  INDEX,
  QSTASH,
  byJob,
  chosenDatabases,
  info,
  labelValues,
  namedOrNot,
  onlyChosen,
  perLimit,
  rate,
  sel,
  sumRate,
} from './promql.js';

/** Every unit's series, each named (a database, a QStash instance, an index) where a listing names it. */
const units = (expr: string) => namedOrNot(expr, sel('upstash_up'), DATABASE, QSTASH, INDEX);
const UNIT =
  '{{account}} {{source}} {{database_name}}{{region}}{{index_name}} {{database_id}}{{qstash_id}}{{index_id}}';

/** A QStash instance's series, with its region. */
const instance = (metric: string) => namedOrNot(sel(metric), sel(metric), QSTASH);
const INSTANCE = '{{account}} {{region}} {{qstash_id}}';
const REQUESTS_LAST_HOUR = sel('upstash_qstash_requests_last_hour');

/** Seconds since a timestamp. */
const age = (metric: string) => `time() - ${sel(metric)}`;
/** Series largest first, as a bar gauge shows them. */
const largestFirst = (metric: string) => `sort_desc(${sel(metric)})`;

/** The database of the repeated row. */
const thisDb = (metric: string) => sel(metric, 'database_id=~"$database_id"');
const HITS = thisDb('upstash_redis_hits_per_second');
const MISSES = thisDb('upstash_redis_misses_per_second');

const tableOf = (metric: string) =>
  onlyChosen(`max without (instance) (${sel(metric)})`, DATABASE, CHOSEN_DATABASES);
const ofLimit = (value: string, limit: string, positiveOnly?: boolean) =>
  chosenDatabases(perLimit(sel(value), sel(limit), DATABASE, positiveOnly));

const UP_DOWN: dashboard.ValueMapping[] = [
  {
    type: dashboard.MappingType.ValueToText,
    options: { 0: { text: 'DOWN', color: 'red', index: 0 }, 1: { text: 'UP', color: 'green', index: 1 } },
  },
];
const NEAR_LIMIT = ['green', [0.8, 'red']] as const;
const SOON = ['green', [100, 'orange'], [1000, 'red']] as const;

export const upstash: Spec = {
  uid: 'upstash-exporter',
  title: 'Upstash',
  description:
    "QStash (flow control, URL groups, queues and schedules, limits, delivery and dead-letter queues), Redis databases (stats, limits, backups and settings) and the health of upstash-exporter's sources, as it polls them. Vector and Search indexes are on the Upstash Vector and Search dashboard.",
  tags: ['upstash', 'qstash', 'redis', 'prometheus'],
  from: 'now-6h',
  variables: [
    {
      name: 'database',
      label: 'Database name',
      query: labelValues(info(DATABASE), 'database_name'),
      description: 'Databases by name, from upstash_redis_database_info (the databases source).',
    },
    {
      name: 'database_id',
      label: 'Database',
      query: `query_result(max by (database_id, database_name) (${info(DATABASE, CHOSEN_DATABASES)}))`,
      regex: '/database_id="(?<value>[^"]*)".*database_name="(?<text>[^"]*)"/',
      description:
        'The chosen databases: each shown by its name (from upstash_redis_database_info), its value the ID that the queries filter on.',
    },
    label,
  ],
  rows: [
    {
      title: 'Overview',
      panels: [
        stats({
          title: 'Sources up',
          description:
            "upstash_up: 1 when the last poll of a unit succeeded, 0 when it failed. One tile per unit: a source of an account, a database's statistics (by name and ID), a QStash instance's statistics (by region and ID), an index's statistics (by name and ID).",
          unit: 'none',
          size: [8, 6],
          steps: ['red', [1, 'green']],
          color: common.BigValueColorMode.Background,
          mappings: UP_DOWN,
          queries: [q(units(sel('upstash_up')), UNIT)],
        }),
        stats({
          title: 'Last success age',
          description:
            'Seconds since each source was last polled successfully (time() - upstash_exporter_last_success_timestamp_seconds). Series are dropped after 3 intervals without success.',
          unit: 's',
          size: [8, 6],
          steps: ['green', [300, 'orange'], [900, 'red']],
          queries: [q(units(age('upstash_exporter_last_success_timestamp_seconds')), UNIT)],
        }),
        stats({
          title: 'Exporter',
          description: 'Version of upstash-exporter and of Node.js it runs on (upstash_exporter_build_info).',
          unit: 'none',
          size: [8, 6],
          color: common.BigValueColorMode.None,
          text: common.BigValueTextMode.Name,
          queries: [
            q(byJob('upstash_exporter_build_info'), '{{instance}} v{{version}} (node {{node_version}})'),
          ],
        }),
        graph({
          title: 'Poll failures by reason',
          description:
            'Failed polls per second, by source and reason (unauthorized, not_found, rate_limited, server_error, client_error, timeout, network, invalid_response).',
          unit: 'ops',
          size: [8, 8],
          fill: 10,
          queries: [
            q(
              sumRate('source, reason', 'upstash_exporter_poll_failures_total'),
              '{{account}} {{source}} {{reason}}',
            ),
          ],
        }),
        graph({
          title: 'Upstash API requests by code',
          description:
            "HTTP requests the exporter sent to Upstash per second, retries included, by API and response code ('error' when no response arrived).",
          unit: 'reqps',
          size: [8, 8],
          fill: 10,
          queries: [
            q(
              `sum by (api, code) (${rate(byJob('upstash_exporter_api_requests_total'))})`,
              '{{api}} {{code}}',
            ),
          ],
        }),
        graph({
          title: 'Poll duration',
          description: 'How long the last poll of each source took, retries and waits included.',
          unit: 's',
          size: [8, 8],
          queries: [q(units(sel('upstash_exporter_poll_duration_seconds')), UNIT)],
        }),
      ],
    },
    {
      title: 'QStash',
      panels: [
        graph({
          title: 'Flow-control wait list per key',
          description:
            "Messages waiting in each flow-control key's wait list (upstash_qstash_flow_control_wait_list_size). A list that keeps growing means the consumers are slower than the producers.",
          unit: 'short',
          size: [16, 9],
          queries: [q(sel('upstash_qstash_flow_control_wait_list_size'), '{{account}} {{flow_control_key}}')],
        }),
        bars({
          title: 'Top 10 wait lists',
          description: 'The ten flow-control keys with the longest wait lists right now.',
          unit: 'short',
          size: [8, 9],
          steps: SOON,
          queries: [
            q(
              `topk(10, ${sel('upstash_qstash_flow_control_wait_list_size')})`,
              '{{account}} {{flow_control_key}}',
            ),
          ],
        }),
        stats({
          title: 'Flow-control keys',
          description:
            'Flow-control keys upstream, and how many of them are not exported because of limits.max_flow_control_keys.',
          unit: 'short',
          size: [6, 5],
          queries: [
            q(sel('upstash_qstash_flow_control_keys'), '{{account}} keys'),
            q(sel('upstash_qstash_flow_control_keys_omitted'), '{{account}} omitted'),
          ],
        }),
        stats({
          title: 'URL groups',
          description:
            'URL groups upstream, and how many of them are not exported because of limits.max_url_groups.',
          unit: 'short',
          size: [6, 5],
          queries: [
            q(sel('upstash_qstash_url_groups'), '{{account}} groups'),
            q(sel('upstash_qstash_url_groups_omitted'), '{{account}} omitted'),
          ],
        }),
        bars({
          title: 'Endpoints per URL group',
          description:
            'Endpoints in each URL group. A group with none (red) delivers published messages to no one.',
          unit: 'short',
          size: [12, 10],
          steps: ['red', [1, 'green']],
          queries: [q(`sort(${sel('upstash_qstash_url_group_endpoints')})`, '{{account}} {{url_group}}')],
        }),
        stats({
          title: 'URL groups without endpoints',
          description:
            'URL groups that have no endpoint: messages published to them reach no one (see the UpstashQStashUrlGroupWithoutEndpoints alert).',
          unit: 'short',
          size: [6, 5],
          steps: ['green', [1, 'red']],
          queries: [
            q(
              `count by (account) (${sel('upstash_qstash_url_group_endpoints')} == 0) or on (account) (0 * ${sel('upstash_qstash_url_groups')})`,
              '{{account}}',
            ),
          ],
        }),
        stats({
          title: 'Last URL group change',
          description: 'Time since the most recent change to any URL group (largest updatedAt).',
          unit: 's',
          size: [6, 5],
          queries: [
            q(
              `time() - max by (account) (${sel('upstash_qstash_url_group_updated_timestamp_seconds')})`,
              '{{account}}',
            ),
          ],
        }),
      ],
    },
    {
      title: 'QStash queues and schedules',
      panels: [
        graph({
          title: 'Queue lag per queue',
          description:
            "Unprocessed messages in each QStash queue (upstash_qstash_queue_lag). A lag that keeps growing means the queue's consumers cannot keep up; a paused queue's lag only grows.",
          unit: 'short',
          size: [16, 8],
          queries: [q(sel('upstash_qstash_queue_lag'), '{{account}} {{queue}}')],
        }),
        stats({
          title: 'Paused queues',
          description:
            'Whether each queue is paused (1) or not (0), with the number of queues upstream and those omitted by limits.max_queues.',
          unit: 'short',
          size: [8, 8],
          queries: [
            q(sel('upstash_qstash_queue_paused'), '{{account}} {{queue}} paused'),
            q(sel('upstash_qstash_queues'), '{{account}} queues'),
            q(sel('upstash_qstash_queues_omitted'), '{{account}} omitted'),
          ],
        }),
        stats({
          title: 'Failing schedules',
          description:
            'Schedules whose last run had a message end in FAIL (upstash_qstash_schedule_last_run_failed), and schedules upstream by paused state.',
          unit: 'short',
          size: [8, 8],
          queries: [
            q(`sum by (account) (${sel('upstash_qstash_schedule_last_run_failed')})`, '{{account}} failing'),
            q(sel('upstash_qstash_schedules'), '{{account}} paused={{paused}}'),
          ],
        }),
        bars({
          title: 'Next schedule runs',
          description:
            'Time until each schedule runs next (upstash_qstash_schedule_next_run_timestamp_seconds), soonest first.',
          unit: 's',
          size: [16, 8],
          steps: SOON,
          queries: [
            q(
              `sort(${sel('upstash_qstash_schedule_next_run_timestamp_seconds')} - time())`,
              '{{account}} {{schedule_id}}',
            ),
          ],
        }),
      ],
    },
    {
      title: 'QStash limits',
      panels: [
        graph({
          title: 'DLQ messages vs max',
          description:
            "Messages in each QStash instance's dead-letter queue (upstash_qstash_dlq_messages) against the plan's max_dlq_size (upstash_qstash_max_dlq_messages).",
          unit: 'short',
          size: [12, 8],
          queries: [
            q(instance('upstash_qstash_dlq_messages'), `${INSTANCE} DLQ`),
            q(instance('upstash_qstash_max_dlq_messages'), `${INSTANCE} max`),
          ],
        }),
        graph({
          title: 'Daily requests vs plan limit',
          description:
            "Requests of the latest day (upstash_qstash_daily_requests) against the plan's max_requests_per_day.",
          unit: 'short',
          size: [12, 8],
          queries: [
            q(instance('upstash_qstash_daily_requests'), `${INSTANCE} requests`),
            q(instance('upstash_qstash_max_requests_per_day'), `${INSTANCE} limit`),
          ],
        }),
        graph({
          title: 'Global parallelism in use vs max',
          description:
            "Messages running at once across all flow-control keys (upstash_qstash_global_parallelism_in_use) against the account's global maximum.",
          unit: 'short',
          size: [12, 8],
          queries: [
            q(sel('upstash_qstash_global_parallelism_in_use'), '{{account}} in use'),
            q(sel('upstash_qstash_global_parallelism_max'), '{{account}} max'),
          ],
        }),
        graph({
          title: 'Flow-control parallelism in use vs max',
          description:
            'Messages running at once per flow-control key (upstash_qstash_flow_control_parallelism_in_use) against its parallelism maximum; a key at its maximum with messages waiting is saturated.',
          unit: 'short',
          size: [12, 8],
          queries: [
            q(
              sel('upstash_qstash_flow_control_parallelism_in_use'),
              '{{account}} {{flow_control_key}} in use',
            ),
            q(sel('upstash_qstash_flow_control_parallelism_max'), '{{account}} {{flow_control_key}} max'),
          ],
        }),
      ],
    },
    {
      title: 'QStash delivery',
      panels: [
        graph({
          title: 'Message outcomes, last hour',
          description:
            'Messages of the last hour by outcome, per QStash instance (upstash_qstash_messages_last_hour: the sum of the one-minute points of the stats).',
          unit: 'short',
          size: [12, 8],
          queries: [q(instance('upstash_qstash_messages_last_hour'), `${INSTANCE} {{state}}`)],
        }),
        graph({
          title: 'Delivery failure ratio, last hour',
          description:
            "Share of the last hour's messages that ended failed or error (recorded by prometheus/alerts.yml); UpstashQStashDeliveryFailuresHigh fires above 5 %.",
          unit: 'percentunit',
          size: [12, 8],
          queries: [
            q(instance('account_qstash_id:upstash_qstash_messages_failed:ratio_last_hour'), INSTANCE),
          ],
        }),
        graph({
          title: 'Workflow outcomes, last hour',
          description:
            'Workflow messages of the last hour by outcome (upstash_qstash_workflow_messages_last_hour), and workflow runs today (upstash_qstash_daily_workflow_runs).',
          unit: 'short',
          size: [12, 8],
          queries: [
            q(instance('upstash_qstash_workflow_messages_last_hour'), `${INSTANCE} {{state}}`),
            q(instance('upstash_qstash_daily_workflow_runs'), `${INSTANCE} runs today`),
          ],
        }),
        graph({
          title: 'Request pace vs hard daily limit',
          description:
            "The last hour's requests times 24, against the plan's hard daily limit (upstash_qstash_max_requests_per_day_hard), beyond which QStash refuses requests; UpstashQStashRequestPaceNearHardLimit fires above 90 %.",
          unit: 'percentunit',
          size: [12, 8],
          queries: [
            q(
              namedOrNot(
                perLimit(
                  `24 * ${REQUESTS_LAST_HOUR}`,
                  sel('upstash_qstash_max_requests_per_day_hard'),
                  QSTASH,
                ),
                REQUESTS_LAST_HOUR,
                QSTASH,
              ),
              INSTANCE,
            ),
          ],
        }),
        bars({
          title: 'DLQ messages by queue',
          description:
            'Dead-letter messages read by the last DLQ poll, by queue (upstash_qstash_dlq_messages_by_queue), largest first.',
          unit: 'short',
          size: [8, 8],
          queries: [q(largestFirst('upstash_qstash_dlq_messages_by_queue'), '{{account}} {{queue}}')],
        }),
        bars({
          title: 'DLQ messages by response status',
          description:
            'Dead-letter messages read by the last DLQ poll, by the HTTP status of their last delivery attempt (upstash_qstash_dlq_messages_by_response_status), and failed workflow runs the same way.',
          unit: 'short',
          size: [8, 8],
          queries: [
            q(largestFirst('upstash_qstash_dlq_messages_by_response_status'), '{{account}} {{code}}'),
            q(
              largestFirst('upstash_qstash_workflow_dlq_messages_by_response_status'),
              '{{account}} workflow {{code}}',
            ),
          ],
        }),
        graph({
          title: 'Oldest DLQ message age vs half the retention',
          description:
            'How long the oldest dead-letter message read has waited (upstash_qstash_dlq_oldest_message_timestamp_seconds), against half the shortest DLQ retention (upstash_qstash_dlq_retention_seconds); UpstashQStashDlqMessageOld fires above it.',
          unit: 's',
          size: [8, 8],
          queries: [
            q(age('upstash_qstash_dlq_oldest_message_timestamp_seconds'), '{{account}} DLQ'),
            q(
              age('upstash_qstash_workflow_dlq_oldest_message_timestamp_seconds'),
              '{{account}} workflow DLQ',
            ),
            q(
              `min by (job, account) (${sel('upstash_qstash_dlq_retention_seconds')}) / 2`,
              '{{account}} half the retention',
            ),
          ],
        }),
        graph({
          title: 'DLQ messages read and scans complete',
          description:
            'Messages read by the last poll of each DLQ (..._scanned_messages: at most max_dlq_pages pages of 100), and whether it reached the end (..._scan_complete, right axis: 1 complete, 0 stopped at the cap).',
          unit: 'short',
          size: [24, 6],
          queries: [
            q(sel('upstash_qstash_dlq_scanned_messages'), '{{account}} DLQ read'),
            q(sel('upstash_qstash_workflow_dlq_scanned_messages'), '{{account}} workflow DLQ read'),
            q(sel('upstash_qstash_dlq_scan_complete'), '{{account}} DLQ complete'),
            q(sel('upstash_qstash_workflow_dlq_scan_complete'), '{{account}} workflow DLQ complete'),
          ],
        }),
      ],
    },
    deliveries,
    workflows,
    {
      title: 'Redis ${database_id:text}',
      repeat: 'database_id',
      panels: [
        graph({
          title: 'Throughput',
          description: "Commands per second (latest point of the stats 'throughput' series).",
          unit: 'ops',
          size: [8, 8],
          fill: 10,
          queries: [q(thisDb('upstash_redis_throughput_commands_per_second'), '{{account}} commands')],
        }),
        graph({
          title: 'Reads and writes',
          description: 'Read and write commands per second.',
          unit: 'ops',
          size: [8, 8],
          fill: 10,
          queries: [
            q(thisDb('upstash_redis_read_commands_per_second'), '{{account}} read'),
            q(thisDb('upstash_redis_write_commands_per_second'), '{{account}} write'),
          ],
        }),
        graph({
          title: 'Hits vs misses',
          description: 'Key lookups per second that found a key (hits) or not (misses).',
          unit: 'ops',
          size: [8, 8],
          fill: 10,
          stacked: true,
          queries: [q(HITS, '{{account}} hits'), q(MISSES, '{{account}} misses')],
        }),
        graph({
          title: 'Hit ratio',
          description: 'hits / (hits + misses); absent while there is no read traffic (no division by zero).',
          unit: 'percentunit',
          size: [8, 8],
          min: 0,
          max: 1,
          queries: [q(`${HITS} / ((${HITS} + ${MISSES}) > 0)`, '{{account}} hit ratio')],
        }),
        graph({
          title: 'Latency p99',
          description: '99th percentile read and write latency.',
          unit: 's',
          size: [8, 8],
          queries: [
            q(thisDb('upstash_redis_read_latency_p99_seconds'), '{{account}} read p99'),
            q(thisDb('upstash_redis_write_latency_p99_seconds'), '{{account}} write p99'),
          ],
        }),
        graph({
          title: 'Latency mean',
          description: 'Mean latency of all, read and write commands.',
          unit: 's',
          size: [8, 8],
          queries: [
            q(thisDb('upstash_redis_latency_mean_seconds'), '{{account}} mean'),
            q(thisDb('upstash_redis_read_latency_mean_seconds'), '{{account}} read mean'),
            q(thisDb('upstash_redis_write_latency_mean_seconds'), '{{account}} write mean'),
          ],
        }),
        graph({
          title: 'Keys',
          description: 'Number of keys in the database.',
          unit: 'short',
          size: [8, 8],
          fill: 10,
          queries: [q(thisDb('upstash_redis_keys'), '{{account}} keys')],
        }),
        graph({
          title: 'Disk usage',
          description: 'Disk space used by the database.',
          unit: 'bytes',
          size: [8, 8],
          fill: 10,
          queries: [q(thisDb('upstash_redis_disk_usage_bytes'), '{{account}} disk')],
        }),
        graph({
          title: 'Connections',
          description: 'Open client connections.',
          unit: 'short',
          size: [8, 8],
          fill: 10,
          queries: [q(thisDb('upstash_redis_connections'), '{{account}} connections')],
        }),
        graph({
          title: 'Daily requests',
          description: "Requests on the latest day of the stats 'dailyrequests' series.",
          unit: 'short',
          size: [8, 8],
          fill: 10,
          queries: [q(thisDb('upstash_redis_daily_requests'), '{{account}} requests')],
        }),
        graph({
          title: 'Daily bandwidth',
          description: "Bandwidth of the latest day ('bandwidths' series, and the 'dailybandwidth' figure).",
          unit: 'bytes',
          size: [8, 8],
          queries: [
            q(thisDb('upstash_redis_bandwidth_bytes'), '{{account}} bandwidth'),
            q(thisDb('upstash_redis_daily_bandwidth_bytes'), '{{account}} daily bandwidth'),
          ],
        }),
        graph({
          title: 'Daily billing',
          description: 'Dollars billed for the latest day.',
          unit: 'currencyUSD',
          size: [8, 8],
          fill: 10,
          queries: [q(thisDb('upstash_redis_daily_billing_dollars'), '{{account}} daily')],
        }),
        stats({
          title: 'Monthly billing',
          description:
            "Dollars billed so far this month (total_monthly_billing). UpstashRedisMonthlyBillingHigh fires above the database's monthly budget, or above a fixed amount ($100 by default) for a database without one.",
          unit: 'currencyUSD',
          size: [6, 6],
          steps: ['green', [50, 'orange'], [100, 'red']],
          queries: [q(thisDb('upstash_redis_monthly_billing_dollars'), '{{account}}')],
        }),
        stats({
          title: 'Monthly storage',
          description: 'Storage billed this month (total_monthly_storage).',
          unit: 'bytes',
          size: [6, 6],
          queries: [q(thisDb('upstash_redis_monthly_storage_bytes'), '{{account}}')],
        }),
        graph({
          title: 'Monthly requests',
          description: 'Requests so far this month: all, reads and writes.',
          unit: 'short',
          size: [12, 6],
          queries: [
            q(thisDb('upstash_redis_monthly_requests'), '{{account}} all'),
            q(thisDb('upstash_redis_monthly_read_requests'), '{{account}} read'),
            q(thisDb('upstash_redis_monthly_write_requests'), '{{account}} write'),
          ],
        }),
      ],
    },
    {
      title: 'Redis databases',
      panels: [
        rowsOf({
          title: 'Databases',
          description:
            'Every polled database of the account as the databases source lists it (name, plan, regions, state), with its usage against its limits. A request limit of 8.02e18 is Upstash\'s "no limit"; a budget of 0 means none is set.',
          unit: 'short',
          size: [24, 10],
          sortBy: 'database_name',
          columns: {
            B: ['short', 'Requests today'],
            C: ['short', 'Requests this month'],
            D: ['short', 'Request limit'],
            E: ['currencyUSD', 'Billed this month'],
            F: ['currencyUSD', 'Budget'],
            G: ['bytes', 'Disk used'],
            H: ['bytes', 'Disk limit'],
          },
          transformations: merged(['Time', 'Value #A', '__name__', 'job', 'instance']),
          queries: [
            q(`max without (instance) (${info(DATABASE, CHOSEN_DATABASES)})`),
            ...[
              'upstash_redis_daily_requests',
              'upstash_redis_monthly_requests',
              'upstash_redis_request_limit',
              'upstash_redis_monthly_billing_dollars',
              'upstash_redis_budget_dollars',
              'upstash_redis_disk_usage_bytes',
              'upstash_redis_disk_limit_bytes',
            ].map((m) => q(tableOf(m))),
          ],
        }),
        ...[
          {
            title: 'Requests this month / request limit',
            description:
              "Requests so far this month over the database's request limit (db_request_limit). Databases without a limit show next to 0. UpstashRedisRequestLimitNear fires above 80 %.",
            expr: ofLimit('upstash_redis_monthly_requests', 'upstash_redis_request_limit', false),
          },
          {
            title: 'Billed this month / budget',
            description:
              'Dollars billed so far this month over the monthly budget, for databases with a budget set. UpstashRedisBudgetNear fires above 80 %.',
            expr: ofLimit('upstash_redis_monthly_billing_dollars', 'upstash_redis_budget_dollars'),
          },
          {
            title: 'Disk used / disk limit',
            description:
              "Disk used over the database's disk limit (db_disk_threshold). UpstashRedisDiskNearLimit fires above 80 %.",
            expr: ofLimit('upstash_redis_disk_usage_bytes', 'upstash_redis_disk_limit_bytes'),
          },
          {
            title: 'Connections / max clients',
            description:
              "Open connections over the database's max clients. UpstashRedisConnectionsNearMax fires above 80 %.",
            expr: ofLimit('upstash_redis_connections', 'upstash_redis_max_clients'),
          },
          {
            title: 'Throughput / max commands per second',
            description:
              "Commands per second over the database's max commands per second. UpstashRedisThroughputNearMax fires above 80 %.",
            expr: ofLimit(
              'upstash_redis_throughput_commands_per_second',
              'upstash_redis_max_commands_per_second',
            ),
          },
        ].map(({ expr, ...p }) =>
          graph({
            ...p,
            unit: 'percentunit',
            size: [8, 8],
            steps: NEAR_LIMIT,
            queries: [q(expr, '{{database_name}}')],
          }),
        ),
        graph({
          title: 'Latency p99 (all commands)',
          description: '99th percentile service time of all commands (latency_99).',
          unit: 's',
          size: [8, 8],
          steps: NEAR_LIMIT,
          queries: [q(chosenDatabases(sel('upstash_redis_latency_p99_seconds')), '{{database_name}}')],
        }),
        graph({
          title: 'Top commands',
          description:
            'The ten most counted commands per chosen database (command_counts, latest point; at most max_commands_per_database are exported).',
          unit: 'short',
          size: [12, 8],
          steps: NEAR_LIMIT,
          queries: [
            q(`topk(10, ${chosenDatabases(sel('upstash_redis_commands'))})`, '{{database_name}} {{command}}'),
          ],
        }),
        graph({
          title: 'Requests today',
          description: 'Commands today (daily_net_commands), reads and writes.',
          unit: 'short',
          size: [12, 8],
          steps: NEAR_LIMIT,
          queries: [
            q(chosenDatabases(sel('upstash_redis_daily_commands')), '{{database_name}} all'),
            q(chosenDatabases(sel('upstash_redis_daily_read_requests')), '{{database_name}} read'),
            q(chosenDatabases(sel('upstash_redis_daily_write_requests')), '{{database_name}} write'),
          ],
        }),
        rowsOf({
          title: 'Backups and replicas',
          description:
            'Backups of each polled database by state (the redis_backups source, polled every backups_interval), when the newest completed and failed ones were made, and its replicas and read regions. UpstashRedisBackupMissing fires after 36 h without a completed backup where daily backups are on; UpstashRedisBackupFailed when the newest attempt failed.',
          unit: 'short',
          size: [12, 8],
          sortBy: 'database_name',
          columns: {
            A: ['short', 'Completed backups'],
            B: ['short', 'Failed backups'],
            C: ['short', 'Pending backups'],
            D: ['dateTimeFromNow', 'Last completed backup'],
            E: ['dateTimeFromNow', 'Last failed backup'],
            F: ['short', 'Replicas'],
            G: ['short', 'Read regions'],
          },
          transformations: merged(['Time', '__name__', 'job', 'instance', 'database_id']),
          queries: [
            ...['completed', 'failed', 'pending'].map((state) =>
              q(chosenDatabases(`sum without (state) (${sel('upstash_redis_backups', `state="${state}"`)})`)),
            ),
            // Grafana's dateTimeFromNow takes milliseconds.
            q(chosenDatabases(`${sel('upstash_redis_backup_last_completed_timestamp_seconds')} * 1000`)),
            q(chosenDatabases(`${sel('upstash_redis_backup_last_failed_timestamp_seconds')} * 1000`)),
            q(chosenDatabases(sel('upstash_redis_replicas'))),
            q(chosenDatabases(sel('upstash_redis_read_regions'))),
          ],
        }),
        featureMatrix({
          title: 'Settings',
          description:
            'Settings of each polled database as its listing reports them: 1 on, 0 off (tls, eviction, daily_backup, consistent, auto_upgrade, prod_pack, native_prometheus). UpstashRedisTlsDisabled and UpstashRedisDailyBackupDisabled (info) say when TLS or daily backups are off.',
          unit: 'short',
          size: [12, 8],
          queries: [q(chosenDatabases(sel('upstash_redis_feature_enabled')))],
        }),
      ],
    },
    safety,
    // Last, so that the ids of the panels above (what links to them use) stay as they were.
    byLabel,
  ],
};
