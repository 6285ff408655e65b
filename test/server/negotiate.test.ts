import { describe, expect, it } from 'vitest';
import { negotiateFormat, parseListenAddress } from '../../src/server/routes.js';

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

describe('parseListenAddress', () => {
  it('splits host and port, with every interface for an empty host and IPv6 in brackets', () => {
    expect(parseListenAddress(':9645')).toEqual({ host: undefined, port: 9645 });
    expect(parseListenAddress('127.0.0.1:80')).toEqual({ host: '127.0.0.1', port: 80 });
    expect(parseListenAddress('[::1]:9645')).toEqual({ host: '::1', port: 9645 });
  });
});
