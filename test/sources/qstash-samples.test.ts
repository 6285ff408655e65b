import { describe, expect, it } from 'vitest';
import { parseFlowControl } from '../../src/upstash/flow-control.js';
import type { Sample } from '../../src/metrics/sample.js';
import { DlqTally } from '../../src/sources/dlq.js';
import { MAX_LABEL_VALUE_LENGTH } from '../../src/metrics/label-limit.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { globalParallelismSamples } from '../../src/sources/global-parallelism.js';
import { qstashStatsSamples } from '../../src/sources/qstash-stats.js';
import { qstashUserSamples } from '../../src/sources/qstash-users.js';
import { queueSamples } from '../../src/sources/queues.js';
import { scheduleSamples } from '../../src/sources/schedules.js';
import type { Schedule } from '../../src/upstash/schedules.js';

/** `name{label="value",…} value` per sample, for compact assertions. */
const lines = (samples: readonly Sample[]): string[] =>
  samples.map((s) => `${s.metric.name}{${s.labels.map(([k, v]) => `${k}="${v}"`).join(',')}} ${s.value}`);

describe('flowControlSamples, the figures of 6.4', () => {
  // Through the parser, which reads the omitted zeros (Upstash omits zero values).
  it('paused for every key; parallelism only with parallelismMax; rate only with rateMax; omitted zeros as 0', async () => {
    const { entries } = await parseFlowControl([
      { flowControlKey: 'full', waitListSize: 9, isPaused: true, parallelismMax: 5, parallelismCount: 5 },
      { flowControlKey: 'rated', waitListSize: 0, rateMax: 100, ratePeriod: 60 },
      { flowControlKey: 'plain', waitListSize: 1, parallelismCount: 3, rateCount: 2 },
    ]);
    const out = lines(flowControlSamples('eu', entries, 10));
    expect(out).toEqual([
      'upstash_qstash_flow_control_wait_list_size{account="eu",flow_control_key="full"} 9',
      'upstash_qstash_flow_control_paused{account="eu",flow_control_key="full"} 1',
      'upstash_qstash_flow_control_parallelism_max{account="eu",flow_control_key="full"} 5',
      'upstash_qstash_flow_control_parallelism_in_use{account="eu",flow_control_key="full"} 5',
      'upstash_qstash_flow_control_wait_list_size{account="eu",flow_control_key="rated"} 0',
      'upstash_qstash_flow_control_paused{account="eu",flow_control_key="rated"} 0',
      'upstash_qstash_flow_control_rate_max{account="eu",flow_control_key="rated"} 100',
      'upstash_qstash_flow_control_rate_dispatched{account="eu",flow_control_key="rated"} 0',
      'upstash_qstash_flow_control_rate_period_seconds{account="eu",flow_control_key="rated"} 60',
      'upstash_qstash_flow_control_wait_list_size{account="eu",flow_control_key="plain"} 1',
      'upstash_qstash_flow_control_paused{account="eu",flow_control_key="plain"} 0',
      'upstash_qstash_flow_control_keys{account="eu"} 3',
      'upstash_qstash_flow_control_keys_omitted{account="eu"} 0',
    ]);
  });
});

describe('queueSamples', () => {
  const queues = [
    { name: 'a', lag: 1, parallelism: 1, paused: false },
    { name: 'b', lag: 50, parallelism: 2, paused: true },
    { name: 'c', lag: 50, paused: false },
    { name: 'd', lag: 7, parallelism: 1, paused: false },
  ];

  it('exports every queue under the limit, parallelism only when known', () => {
    const out = lines(queueSamples('eu', queues, 10));
    expect(out).toContain('upstash_qstash_queues{account="eu"} 4');
    expect(out).toContain('upstash_qstash_queues_omitted{account="eu"} 0');
    expect(out).toContain('upstash_qstash_queue_lag{account="eu",queue="b"} 50');
    expect(out).toContain('upstash_qstash_queue_paused{account="eu",queue="b"} 1');
    expect(out).toContain('upstash_qstash_queue_parallelism{account="eu",queue="b"} 2');
    expect(out.filter((l) => l.includes('queue="c"'))).toEqual([
      'upstash_qstash_queue_lag{account="eu",queue="c"} 50',
      'upstash_qstash_queue_paused{account="eu",queue="c"} 0',
    ]);
  });

  it('keeps the largest lags above max_queues (ties by name) and counts the rest', () => {
    const samples = queueSamples('eu', queues, 2);
    const kept = samples
      .filter((s) => s.metric.name === 'upstash_qstash_queue_lag')
      .map((s) => s.labels[1]?.[1]);
    expect(kept).toEqual(['b', 'c']);
    expect(lines(samples)).toContain('upstash_qstash_queues{account="eu"} 4');
    expect(lines(samples)).toContain('upstash_qstash_queues_omitted{account="eu"} 2');
  });
});

describe('scheduleSamples', () => {
  const schedule = (id: string, extra: Partial<Schedule> = {}): Schedule => ({
    id,
    cron: '*/5 * * * *',
    paused: false,
    lastRunFailed: false,
    ...extra,
  });

  it('both paused counts always, last run only when present, times in seconds', () => {
    const out = lines(
      scheduleSamples(
        'eu',
        [schedule('s1', { nextRunMs: 1_700_000_600_000, lastRunMs: 1_700_000_300_500, lastRunFailed: true })],
        10,
      ),
    );
    expect(out).toEqual([
      'upstash_qstash_schedules{account="eu",paused="false"} 1',
      'upstash_qstash_schedules{account="eu",paused="true"} 0',
      'upstash_qstash_schedules_omitted{account="eu"} 0',
      'upstash_qstash_schedule_info{account="eu",schedule_id="s1",cron="*/5 * * * *"} 1',
      'upstash_qstash_schedule_paused{account="eu",schedule_id="s1"} 0',
      'upstash_qstash_schedule_next_run_timestamp_seconds{account="eu",schedule_id="s1"} 1700000600',
      'upstash_qstash_schedule_last_run_timestamp_seconds{account="eu",schedule_id="s1"} 1700000300.5',
      'upstash_qstash_schedule_last_run_failed{account="eu",schedule_id="s1"} 1',
    ]);
    expect(lines(scheduleSamples('eu', [], 10)).slice(0, 2)).toEqual([
      'upstash_qstash_schedules{account="eu",paused="false"} 0',
      'upstash_qstash_schedules{account="eu",paused="true"} 0',
    ]);
  });

  it('above max_schedules keeps the failing first, then the soonest next run, and counts all', () => {
    const all = [
      schedule('late', { nextRunMs: 9000 }),
      schedule('never', { paused: true }),
      schedule('soon', { nextRunMs: 1000 }),
      schedule('failing', { nextRunMs: 99_000, lastRunFailed: true }),
    ];
    const samples = scheduleSamples('eu', all, 2);
    const kept = samples
      .filter((s) => s.metric.name === 'upstash_qstash_schedule_paused')
      .map((s) => s.labels[1]?.[1]);
    expect(kept).toEqual(['failing', 'soon']);
    const out = lines(samples);
    expect(out).toContain('upstash_qstash_schedules{account="eu",paused="false"} 3');
    expect(out).toContain('upstash_qstash_schedules{account="eu",paused="true"} 1');
    expect(out).toContain('upstash_qstash_schedules_omitted{account="eu"} 2');
  });
});

describe('globalParallelismSamples', () => {
  it('max when known, in use always', () => {
    expect(lines(globalParallelismSamples('eu', { max: 100, inUse: 0 }))).toEqual([
      'upstash_qstash_global_parallelism_max{account="eu"} 100',
      'upstash_qstash_global_parallelism_in_use{account="eu"} 0',
    ]);
    expect(lines(globalParallelismSamples('eu', { inUse: 3 }))).toEqual([
      'upstash_qstash_global_parallelism_in_use{account="eu"} 3',
    ]);
  });
});

describe('qstashUserSamples and qstashStatsSamples', () => {
  const INSTANCE = { id: 'q-1', region: 'eu-central-1', type: 'paid', state: 'active' };

  it('one info series per instance and each limit it has', () => {
    const out = lines(
      qstashUserSamples('main', [
        {
          ...INSTANCE,
          limits: { max_requests_per_day: 1e6, max_message_size: 1_048_576, budget: 0 },
          features: {},
        },
      ]),
    );
    expect(out).toEqual([
      'upstash_qstash_instance_info{account="main",qstash_id="q-1",region="eu-central-1",type="paid",state="active"} 1',
      'upstash_qstash_max_requests_per_day{account="main",qstash_id="q-1"} 1000000',
      'upstash_qstash_max_message_size_bytes{account="main",qstash_id="q-1"} 1048576',
      'upstash_qstash_budget_dollars{account="main",qstash_id="q-1"} 0',
    ]);
  });

  it('the limits of 9.1 in base units, and each setting as 1 or 0 under its feature label', () => {
    const out = lines(
      qstashUserSamples('main', [
        {
          ...INSTANCE,
          limits: {
            max_requests_per_day_hard: 1000,
            max_bandwidth_per_second: 1_048_576,
            max_parallelism: 2,
            max_endpoints_per_topic: 100,
            max_retries: 3,
            max_dlq_retention_time_milis: 259_200_000,
            max_delay: 604_800,
            timeout: 900,
          },
          features: { prod_pack_enabled: false, prometheus_enabled: true, active: true },
        },
      ]),
    );
    expect(out.slice(1)).toEqual([
      'upstash_qstash_max_requests_per_day_hard{account="main",qstash_id="q-1"} 1000',
      'upstash_qstash_max_bandwidth_bytes_per_second{account="main",qstash_id="q-1"} 1048576',
      'upstash_qstash_max_parallelism_per_endpoint{account="main",qstash_id="q-1"} 2',
      'upstash_qstash_max_endpoints_per_url_group{account="main",qstash_id="q-1"} 100',
      'upstash_qstash_max_retries{account="main",qstash_id="q-1"} 3',
      'upstash_qstash_dlq_retention_seconds{account="main",qstash_id="q-1"} 259200',
      'upstash_qstash_max_delay_seconds{account="main",qstash_id="q-1"} 604800',
      'upstash_qstash_max_request_timeout_seconds{account="main",qstash_id="q-1"} 900',
      'upstash_qstash_feature_enabled{account="main",qstash_id="q-1",feature="prod_pack"} 0',
      'upstash_qstash_feature_enabled{account="main",qstash_id="q-1",feature="native_prometheus"} 1',
      'upstash_qstash_feature_enabled{account="main",qstash_id="q-1",feature="active"} 1',
    ]);
  });

  it('stats fields as they are, only those present', () => {
    expect(
      lines(
        qstashStatsSamples('main', 'q-1', {
          values: { dlq_message_count: 4, daily_requests: 420 },
          states: {},
          rejected: [],
        }).samples,
      ),
    ).toEqual([
      'upstash_qstash_dlq_messages{account="main",qstash_id="q-1"} 4',
      'upstash_qstash_daily_requests{account="main",qstash_id="q-1"} 420',
    ]);
  });

  it('hourly sums, workflow figures and one series per state, as many as there are', () => {
    const { samples, dropped } = qstashStatsSamples('main', 'q-1', {
      values: { daily_used: 60, daily_used_workflow: 0, workflow_run: 2, workflow_message: 9 },
      states: {
        daily_qstash_messages: new Map([
          ['delivered', 50],
          ['failed', 0],
        ]),
        daily_workflow_messages: new Map([['canceled', 1]]),
      },
      rejected: [],
    });
    expect(dropped).toBe(0);
    expect(lines(samples)).toEqual([
      'upstash_qstash_requests_last_hour{account="main",qstash_id="q-1"} 60',
      'upstash_qstash_workflow_requests_last_hour{account="main",qstash_id="q-1"} 0',
      'upstash_qstash_daily_workflow_runs{account="main",qstash_id="q-1"} 2',
      'upstash_qstash_daily_workflow_messages{account="main",qstash_id="q-1"} 9',
      'upstash_qstash_messages_last_hour{account="main",qstash_id="q-1",state="delivered"} 50',
      'upstash_qstash_messages_last_hour{account="main",qstash_id="q-1",state="failed"} 0',
      'upstash_qstash_workflow_messages_last_hour{account="main",qstash_id="q-1",state="canceled"} 1',
    ]);
  });

  it('at most 20 states per metric: the largest sums kept, the others counted as dropped', () => {
    const states = new Map(Array.from({ length: 23 }, (_, i) => [`state-${i}`, i] as const));
    const { samples, dropped } = qstashStatsSamples('main', 'q-1', {
      values: {},
      states: { daily_qstash_messages: states, daily_workflow_messages: states },
      rejected: [],
    });
    expect(dropped).toBe(6);
    const kept = samples
      .filter((s) => s.metric.name === 'upstash_qstash_messages_last_hour')
      .map((s) => s.value)
      .sort((a, b) => a - b);
    expect(kept).toEqual(Array.from({ length: 20 }, (_, i) => i + 3));
  });
});

describe('DlqTally', () => {
  const LIMITS = {
    maxFlowControlKeys: 10,
    maxUrlGroups: 1,
    maxCommandsPerDatabase: 10,
    maxQueues: 2,
    maxSchedules: 10,
    maxIndexes: 10,
    maxDlqPages: 10,
    maxTeams: 50,
    maxEventPages: 10,
    maxEventSeries: 10,
    eventSettle: 0,
  };

  it('size, completeness, oldest message and the counts by queue, URL group and status; a message without the field is not counted there', () => {
    const tally = new DlqTally('dlq');
    // Two pages: the counts go on across them.
    tally.add([
      { queueName: 'a', topicName: 'g', responseStatus: 500, createdAt: 1_700_000_060_000 },
      { queueName: 'a', responseStatus: 500, createdAt: 1_700_000_000_000 },
    ]);
    tally.add([
      { queueName: 'b', topicName: 'h' },
      { queueName: 'c', topicName: 'h', responseStatus: 404 },
      { queueName: 'c' },
    ]);
    const { samples, dropped } = tally.samples('eu', false, LIMITS);
    const out = lines(samples);
    // What the caps left out (queue b, URL group g) counts as truncated label values.
    expect(dropped).toBe(2);
    expect(out).toEqual([
      'upstash_qstash_dlq_scanned_messages{account="eu"} 5',
      'upstash_qstash_dlq_scan_complete{account="eu"} 0',
      'upstash_qstash_dlq_oldest_message_timestamp_seconds{account="eu"} 1700000000',
      // max_queues 2: the two largest, ties by name.
      'upstash_qstash_dlq_messages_by_queue{account="eu",queue="a"} 2',
      'upstash_qstash_dlq_messages_by_queue{account="eu",queue="c"} 2',
      // max_url_groups 1.
      'upstash_qstash_dlq_messages_by_url_group{account="eu",url_group="h"} 2',
      'upstash_qstash_dlq_messages_by_response_status{account="eu",code="500"} 2',
      'upstash_qstash_dlq_messages_by_response_status{account="eu",code="404"} 1',
    ]);
  });

  it('holds a long queue or URL-group name as a bounded stand-in from the page it came on, never whole', () => {
    const tally = new DlqTally('dlq');
    const name = (i: number) => `q${i}-`.padEnd(80_000, 'n');
    for (let p = 0; p < 10; p++)
      tally.add(
        Array.from({ length: 100 }, (_, i) => ({ queueName: name(p * 100 + i), topicName: name(i) })),
      );
    const { samples, dropped } = tally.samples('eu', true, {
      ...LIMITS,
      maxQueues: 1000,
      maxUrlGroups: 1000,
    });
    const values = samples.flatMap((s) => s.labels.map(([, value]) => value));
    expect(values.filter((v) => v.startsWith('q'))).toHaveLength(1100);
    for (const value of values) expect(value.length).toBeLessThanOrEqual(MAX_LABEL_VALUE_LENGTH + 65);
    expect(dropped).toBe(0);
  });

  it('an empty workflow DLQ: zero messages, complete, no oldest, the documented callback states at 0', () => {
    expect(lines(new DlqTally('workflow_dlq').samples('eu', true, LIMITS).samples).sort()).toEqual([
      'upstash_qstash_workflow_dlq_scan_complete{account="eu"} 1',
      'upstash_qstash_workflow_dlq_scanned_messages{account="eu"} 0',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_CANCELED"} 0',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_FAIL"} 0',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_INPROGRESS"} 0',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_SUCCESS"} 0',
    ]);
  });

  it('workflow DLQ runs by failure callback state: as spelled, none without one, counted across pages', () => {
    const tally = new DlqTally('workflow_dlq');
    tally.add([{ failureFunctionState: 'CALLBACK_FAIL' }, { failureFunctionState: 'CALLBACK_SUCCESS' }, {}]);
    tally.add([{ failureFunctionState: 'CALLBACK_FAIL' }, { failureFunctionState: 'CALLBACK_RETRYING' }]);
    expect(tally.callbacksFailed).toBe(2);
    const states = lines(tally.samples('eu', true, LIMITS).samples).filter((line) =>
      line.startsWith('upstash_workflow_dlq_failure_callbacks'),
    );
    expect(states.sort()).toEqual([
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_CANCELED"} 0',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_FAIL"} 2',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_INPROGRESS"} 0',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_RETRYING"} 1',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="CALLBACK_SUCCESS"} 1',
      'upstash_workflow_dlq_failure_callbacks{account="eu",state="none"} 1',
    ]);
  });
});
