import { describe, expect, it } from 'vitest';
import { DataSeries, DuplicateSeriesError } from '../../src/metrics/data-series.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';

describe('DataSeries', () => {
  it('renders families once with HELP and TYPE, sources in a fixed order, and empty families left out', () => {
    const series = new DataSeries(DATA_METRICS);
    series.replace(
      'flow_control/b',
      flowControlSamples('b', [{ key: 'x', waitListSize: 2, paused: false }], 10),
    );
    series.replace(
      'flow_control/a',
      flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10),
    );
    const text = series.render('text');
    expect(text.match(/# TYPE upstash_qstash_flow_control_wait_list_size gauge/g)).toHaveLength(1);
    expect(text.indexOf('account="a"')).toBeLessThan(text.indexOf('account="b"'));
    expect(text).not.toContain('upstash_redis');
    // Per account: the key's wait list and paused state, the key count and the omitted count.
    expect(series.size).toBe(8);
  });

  it('forgets a source on drop and re-renders', () => {
    const series = new DataSeries(DATA_METRICS);
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10));
    expect(series.render('text')).toContain('flow_control_key="y"');
    series.drop('s');
    expect(series.render('text')).toBe('');
    expect(series.has('s')).toBe(false);
  });
});

describe('DataSeries duplicates', () => {
  it('refuses two samples of one series and keeps what the source had', () => {
    const series = new DataSeries(DATA_METRICS);
    series.replace('s', flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10));
    const twice = [
      ...flowControlSamples('a', [{ key: 'y', waitListSize: 3, paused: false }], 10),
      ...flowControlSamples('a', [{ key: 'y', waitListSize: 4 }], 10),
    ];
    expect(() => series.replace('s', twice)).toThrow(DuplicateSeriesError);
    const text = series.render('text');
    expect(text).toContain('flow_control_key="y"} 3');
    expect(text).not.toContain('} 4');
  });
});

describe('DataSeries families', () => {
  it("re-joins a family when one of its sources changes and keeps the other sources' lines", () => {
    const series = new DataSeries(DATA_METRICS);
    series.replace('a', flowControlSamples('a', [{ key: 'x', waitListSize: 1 }], 10));
    series.replace('b', flowControlSamples('b', [{ key: 'y', waitListSize: 2 }], 10));
    expect(series.render('openmetrics')).toContain('account="a",flow_control_key="x"} 1');
    series.replace('a', flowControlSamples('a', [{ key: 'x', waitListSize: 5 }], 10));
    const text = series.render('text');
    expect(text).toContain('account="a",flow_control_key="x"} 5');
    expect(text).not.toContain('account="a",flow_control_key="x"} 1');
    expect(text).toContain('account="b",flow_control_key="y"} 2');
    series.drop('b');
    expect(series.render('openmetrics')).not.toContain('account="b"');
  });
});
