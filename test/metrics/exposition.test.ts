import { describe, expect, it } from 'vitest';
import { escapeLabelValue, familyHeader, formatValue, renderFamilies } from '../../src/metrics/exposition.js';

describe('exposition', () => {
  it('escapes backslash, double quote and line feed in label values, and nothing else', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    expect(escapeLabelValue('café ☕ \t')).toBe('café ☕ \t');
  });

  it('spells special values as both formats do', () => {
    expect(formatValue(NaN)).toBe('NaN');
    expect(formatValue(Infinity)).toBe('+Inf');
    expect(formatValue(-Infinity)).toBe('-Inf');
    expect(formatValue(0.5)).toBe('0.5');
    expect(formatValue(1e21)).toBe('1e+21');
  });

  it('names a counter family without _total in OpenMetrics only', () => {
    expect(familyHeader('x_total', 'h', 'counter', 'openmetrics')).toBe('# HELP x h\n# TYPE x counter\n');
    expect(familyHeader('x_total', 'h', 'counter', 'text')).toBe(
      '# HELP x_total h\n# TYPE x_total counter\n',
    );
  });

  it('renders prom-client families in both formats', () => {
    const family = {
      name: 'polls_total',
      help: 'Polls.',
      type: 'counter' as const,
      values: [{ value: 2, labels: { source: 'a"b' } }],
    };
    expect(renderFamilies([family], 'text')).toBe(
      '# HELP polls_total Polls.\n# TYPE polls_total counter\npolls_total{source="a\\"b"} 2\n',
    );
    expect(renderFamilies([family], 'openmetrics')).toBe(
      '# HELP polls Polls.\n# TYPE polls counter\npolls_total{source="a\\"b"} 2\n',
    );
  });

  it('escapes HELP text: backslash and line feed in both formats, double quote in OpenMetrics only', () => {
    const help = 'a\\b\nc "d"';
    expect(familyHeader('g', help, 'gauge', 'text')).toBe('# HELP g a\\\\b\\nc "d"\n# TYPE g gauge\n');
    expect(familyHeader('g', help, 'gauge', 'openmetrics')).toBe(
      '# HELP g a\\\\b\\nc \\"d\\"\n# TYPE g gauge\n',
    );
  });

  it('renames only counters, only by a final _total, and samples of a counter named without it', () => {
    const counter = {
      name: 'errors_total_by_kind',
      help: 'E.',
      type: 'counter' as const,
      values: [{ value: 1, labels: {} }],
    };
    expect(renderFamilies([counter], 'text')).toBe(
      '# HELP errors_total_by_kind E.\n# TYPE errors_total_by_kind counter\nerrors_total_by_kind 1\n',
    );
    expect(renderFamilies([counter], 'openmetrics')).toBe(
      '# HELP errors_total_by_kind E.\n# TYPE errors_total_by_kind counter\nerrors_total_by_kind_total 1\n',
    );
    const gauge = {
      name: 'queue_total',
      help: 'Q.',
      type: 'gauge' as const,
      values: [{ value: 3, labels: { source: 'a', shard: undefined, worker: 2 } }],
    };
    const size = {
      name: 'queue_size',
      help: 'S.',
      type: 'gauge' as const,
      values: [{ value: 1, labels: {} }],
    };
    const gaugeText =
      '# HELP queue_total Q.\n# TYPE queue_total gauge\nqueue_total{source="a",worker="2"} 3\n' +
      '# HELP queue_size S.\n# TYPE queue_size gauge\nqueue_size 1\n';
    expect(renderFamilies([gauge, size], 'text')).toBe(gaugeText);
    expect(renderFamilies([gauge, size], 'openmetrics')).toBe(gaugeText);
  });
});
