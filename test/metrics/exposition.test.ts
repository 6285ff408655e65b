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
});
