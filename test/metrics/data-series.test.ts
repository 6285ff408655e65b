import { describe, expect, it } from 'vitest';
import { crc32 } from 'node:zlib';
import { DataSeries, DuplicateSeriesError } from '../../src/metrics/data-series.js';
import { unitBytes, unitText } from '../../src/metrics/unit-bytes.js';
import { createSelfMetrics } from '../../src/poller/self-metrics.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { Served } from '../helpers/served.js';

// The worker's side of the data series (a hash per unit) served through the serving thread's store,
// as production serves them.

function served() {
  const series = new DataSeries(DATA_METRICS);
  return { series, served: new Served(series, createSelfMetrics()) };
}

describe('DataSeries', () => {
  it('renders families once with HELP and TYPE, sources in a fixed order, and empty families left out', () => {
    const { series, served: out } = served();
    series.replace(
      'flow_control/b',
      flowControlSamples('b', [{ key: 'x', waitListSize: 2, paused: false }], 10),
    );
    series.replace(
      'flow_control/a',
      flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10),
    );
    const text = out.data();
    expect(text.match(/# TYPE upstash_qstash_flow_control_wait_list_size gauge/g)).toHaveLength(1);
    expect(text.indexOf('account="a"')).toBeLessThan(text.indexOf('account="b"'));
    expect(text).not.toContain('upstash_redis');
    // Per account: the key's wait list and paused state, the key count and the omitted count.
    expect(text.split('\n').filter((line) => line !== '' && !line.startsWith('#'))).toHaveLength(8);
  });

  it('knows the hash of the bytes of a unit from its text, before the bytes are made', () => {
    for (const keys of [[], [{ key: 'é€😀 "q"', waitListSize: 2 }], [{ key: 'y', waitListSize: 3 }]]) {
      const text = unitText(flowControlSamples('a', keys, 10));
      const { bytes, hash } = unitBytes(text);
      expect(hash).toBe(text.hash);
      expect(hash).toBe(bytes.length === 0 ? 0 : (crc32(bytes) ^ bytes.length) >>> 0);
    }
  });

  it('forgets a source on drop and re-renders', () => {
    const { series, served: out } = served();
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10));
    expect(out.data()).toContain('flow_control_key="y"');
    series.drop('s');
    expect(out.data()).toBe('');
    expect(series.has('s')).toBe(false);
  });

  it('keeps a hash, not the bytes: a poll that changes nothing hands nothing over', () => {
    const { series } = served();
    const samples = () => flowControlSamples('a', [{ key: 'y', waitListSize: 3 }], 10);
    series.replace('s', samples());
    const [first] = series.takeChanges();
    // The bytes are a buffer of their own, so that transferring them moves nothing else.
    expect(first?.unit?.bytes.byteOffset).toBe(0);
    expect(first?.unit?.bytes.buffer.byteLength).toBe(first?.unit?.bytes.byteLength);
    series.replace('s', samples());
    expect(series.takeChanges()).toEqual([]);
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 4 }], 10));
    expect(series.takeChanges().map((change) => change.id)).toEqual(['s']);
    // Compared with what was handed over, not with the poll before: two equal polls between two
    // publications still hand the change over, and a change undone before it was sent is none.
    const out = new Served(series, createSelfMetrics());
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 5 }], 10));
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 5 }], 10));
    expect(out.data()).toContain('flow_control_key="y"} 5');
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 6 }], 10));
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 5 }], 10));
    expect(series.takeChanges()).toEqual([]);
  });
});

describe('DataSeries duplicates', () => {
  it('refuses two samples of one series and keeps what the source had', () => {
    const { series, served: out } = served();
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10));
    const twice = [
      ...flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10),
      ...flowControlSamples('a', [{ key: 'y', waitListSize: 4 }], 10),
    ];
    expect(() => series.replace('s', twice)).toThrow(DuplicateSeriesError);
    const text = out.data();
    expect(text).toContain('flow_control_key="y"} 3');
    expect(text).not.toContain('} 4');
  });
});

describe('DataSeries families', () => {
  it("re-joins a family when one of its sources changes and keeps the other sources' lines", () => {
    const { series, served: out } = served();
    series.replace('a', flowControlSamples('a', [{ key: 'x', waitListSize: 1 }], 10));
    series.replace('b', flowControlSamples('b', [{ key: 'y', waitListSize: 2 }], 10));
    expect(out.data('openmetrics')).toContain('account="a",flow_control_key="x"} 1');
    series.replace('a', flowControlSamples('a', [{ key: 'x', waitListSize: 5 }], 10));
    const text = out.data();
    expect(text).toContain('account="a",flow_control_key="x"} 5');
    expect(text).not.toContain('account="a",flow_control_key="x"} 1');
    expect(text).toContain('account="b",flow_control_key="y"} 2');
    series.drop('b');
    expect(out.data('openmetrics')).not.toContain('account="b"');
  });
});
