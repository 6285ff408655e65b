import { describe, expect, it } from 'vitest';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { redisStatsSamples } from '../../src/sources/redis-stats.js';
import { urlGroupSamples } from '../../src/sources/url-groups.js';

describe('flowControlSamples', () => {
  const keys = [
    { key: 'a', waitListSize: 1 },
    { key: 'b', waitListSize: 30 },
    { key: 'c', waitListSize: 30 },
    { key: 'd', waitListSize: 5 },
  ];

  it('exports every key and counts them when under the limit', () => {
    const samples = flowControlSamples('eu', keys, 10);
    expect(
      samples.filter((s) => s.metric.name === 'upstash_qstash_flow_control_wait_list_size'),
    ).toHaveLength(4);
    expect(samples.find((s) => s.metric.name === 'upstash_qstash_flow_control_keys')?.value).toBe(4);
    expect(samples.find((s) => s.metric.name === 'upstash_qstash_flow_control_keys_omitted')?.value).toBe(0);
  });

  it('keeps the largest wait lists above the limit, ties broken by key, and counts the rest', () => {
    const samples = flowControlSamples('eu', keys, 2);
    const kept = samples
      .filter((s) => s.metric.name === 'upstash_qstash_flow_control_wait_list_size')
      .map((s) => s.labels[1]?.[1]);
    expect(kept).toEqual(['b', 'c']);
    expect(samples.find((s) => s.metric.name === 'upstash_qstash_flow_control_keys')?.value).toBe(4);
    expect(samples.find((s) => s.metric.name === 'upstash_qstash_flow_control_keys_omitted')?.value).toBe(2);
  });
});

describe('urlGroupSamples', () => {
  it('keeps the groups with most endpoints and converts ms to seconds', () => {
    const groups = [
      { name: 'small', createdAt: 1_700_000_000_123, updatedAt: 1_700_000_001_000, endpointCount: 1 },
      { name: 'big', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_002_000, endpointCount: 9 },
      { name: 'empty', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000, endpointCount: 0 },
    ];
    const samples = urlGroupSamples('eu', groups, 2);
    const endpoints = samples.filter((s) => s.metric.name === 'upstash_qstash_url_group_endpoints');
    expect(endpoints.map((s) => [s.labels[1]?.[1], s.value])).toEqual([
      ['big', 9],
      ['small', 1],
    ]);
    const created = samples.find(
      (s) =>
        s.metric.name === 'upstash_qstash_url_group_created_timestamp_seconds' &&
        s.labels[1]?.[1] === 'small',
    );
    expect(created?.value).toBe(1_700_000_000.123);
    expect(samples.find((s) => s.metric.name === 'upstash_qstash_url_groups_omitted')?.value).toBe(1);
  });
});

describe('redisStatsSamples', () => {
  it('converts latencies from ms to exact seconds and leaves bytes and dollars alone', () => {
    const samples = redisStatsSamples('main', 'db-1', {
      values: { latencymean: 0.693, read_latency_99: 3, diskusage: 1024, total_monthly_billing: 12.5 },
      sampleTimestampMs: 1_762_000_000_500,
      commands: new Map(),
      rejected: [],
    });
    const byName = Object.fromEntries(samples.map((s) => [s.metric.name, s.value]));
    expect(byName).toEqual({
      upstash_redis_latency_mean_seconds: 0.000693,
      upstash_redis_read_latency_p99_seconds: 0.003,
      upstash_redis_disk_usage_bytes: 1024,
      upstash_redis_monthly_billing_dollars: 12.5,
      upstash_redis_stats_sample_timestamp_seconds: 1_762_000_000.5,
    });
    expect(samples[0]?.labels).toEqual([
      ['account', 'main'],
      ['database_id', 'db-1'],
    ]);
  });

  it('produces no sample for a field without a value, and no timestamp without a series point', () => {
    expect(
      redisStatsSamples('main', 'db-1', {
        values: {},
        sampleTimestampMs: undefined,
        commands: new Map(),
        rejected: [],
      }),
    ).toEqual([]);
  });

  it('keeps the largest commands up to the cap, ties by name, labelled by command', () => {
    const samples = redisStatsSamples(
      'main',
      'db-1',
      {
        values: {},
        sampleTimestampMs: undefined,
        commands: new Map([
          ['EXISTS', 1],
          ['GET', 30],
          ['SET', 7],
          ['DEL', 7],
        ]),
        rejected: [],
      },
      3,
    );
    expect(samples.map((s) => [s.labels[2]?.[1], s.value])).toEqual([
      ['GET', 30],
      ['DEL', 7],
      ['SET', 7],
    ]);
    expect(samples.every((s) => s.metric.name === 'upstash_redis_commands')).toBe(true);
  });
});
