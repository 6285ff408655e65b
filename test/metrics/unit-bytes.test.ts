import { describe, expect, it } from 'vitest';
import { counter, histogram } from '../../src/metrics/catalogue.js';
import type { Exemplar, Sample } from '../../src/metrics/sample.js';
import {
  DuplicateSeriesError,
  familyLines,
  openMetricsLines,
  renderUnit,
} from '../../src/metrics/unit-bytes.js';

// One unit's samples as the lines the serving thread keeps (docs/architecture.md, The serving path):
// a family's series told apart by suffix and labels, and its OpenMetrics lines with every exemplar.

const RUNS = counter('upstash_test_runs_total', 'Runs.');
const TIMES = histogram('upstash_test_duration_seconds', 'Durations.');

function exemplar(id: string): Exemplar {
  return { labels: [['run_id', id]], value: 1, timestamp: 2 };
}

function lines(samples: readonly Sample[]): Map<string, string> {
  const unit = renderUnit(samples);
  return new Map([...familyLines(unit)].map(([name, bytes]) => [name, bytes.toString('utf8')]));
}

describe('a unit', () => {
  it('tells the series of a histogram apart by suffix: one label set, three series', () => {
    const labels = [['account', 'a']] as const;
    const out = lines([
      { metric: TIMES, labels: [...labels, ['le', '+Inf']], value: 2, suffix: '_bucket' },
      { metric: TIMES, labels, value: 3.5, suffix: '_sum' },
      { metric: TIMES, labels, value: 2, suffix: '_count' },
    ]);
    expect(out.get(TIMES.name)).toBe(
      'upstash_test_duration_seconds_bucket{account="a",le="+Inf"} 2\n' +
        'upstash_test_duration_seconds_sum{account="a"} 3.5\n' +
        'upstash_test_duration_seconds_count{account="a"} 2\n',
    );
  });

  it('holds the OpenMetrics lines of a family with every line and every exemplar', () => {
    const out = lines([
      { metric: RUNS, labels: [['account', 'a']], value: 1 },
      { metric: RUNS, labels: [['account', 'b']], value: 2, exemplar: exemplar('r_b') },
      { metric: RUNS, labels: [['account', 'c']], value: 3 },
      { metric: RUNS, labels: [['account', 'd']], value: 4, exemplar: exemplar('r_d') },
    ]);
    const plain =
      'upstash_test_runs_total{account="a"} 1\nupstash_test_runs_total{account="b"} 2\n' +
      'upstash_test_runs_total{account="c"} 3\nupstash_test_runs_total{account="d"} 4\n';
    expect(out.get(RUNS.name)).toBe(plain);
    expect(out.get(openMetricsLines(RUNS.name))).toBe(
      'upstash_test_runs_total{account="a"} 1\n' +
        'upstash_test_runs_total{account="b"} 2 # {run_id="r_b"} 1 2\n' +
        'upstash_test_runs_total{account="c"} 3\n' +
        'upstash_test_runs_total{account="d"} 4 # {run_id="r_d"} 1 2\n',
    );
  });

  it('holds no OpenMetrics copy of a family without an exemplar', () => {
    const out = lines([
      { metric: RUNS, labels: [['account', 'a']], value: 1 },
      { metric: TIMES, labels: [['account', 'a']], value: 1, suffix: '_count' },
    ]);
    expect([...out.keys()]).toEqual([RUNS.name, TIMES.name]);
  });

  it('refuses two samples of one series, naming the family', () => {
    const twice = (): unknown =>
      renderUnit([
        { metric: RUNS, labels: [['account', 'a']], value: 1 },
        { metric: RUNS, labels: [['account', 'a']], value: 2 },
      ]);
    expect(twice).toThrow(DuplicateSeriesError);
    expect(twice).toThrow(/^two samples of one upstash_test_runs_total series$/);
    try {
      twice();
    } catch (error) {
      expect((error as Error).name).toBe('DuplicateSeriesError');
    }
  });
});
