import { describe, expect, it } from 'vitest';
import { negotiateFormat } from '../../src/server/metrics-endpoint.js';

describe('negotiateFormat', () => {
  it('serves the text format without an Accept header or for */*', () => {
    expect(negotiateFormat(undefined)).toBe('text');
    expect(negotiateFormat('*/*')).toBe('text');
    expect(negotiateFormat('text/plain;version=0.0.4')).toBe('text');
  });

  it('serves OpenMetrics when it is preferred by q-value, as Prometheus asks', () => {
    expect(
      negotiateFormat(
        'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1',
      ),
    ).toBe('openmetrics');
    expect(negotiateFormat('application/openmetrics-text')).toBe('openmetrics');
  });

  it('keeps the text format when it is preferred or OpenMetrics is refused', () => {
    expect(negotiateFormat('application/openmetrics-text;q=0.2,text/plain;q=0.9')).toBe('text');
    expect(negotiateFormat('application/openmetrics-text;q=0')).toBe('text');
  });
});
