import { describe, expect, it } from 'vitest';
import { parseListenAddress } from '../../src/server/listener.js';

describe('parseListenAddress', () => {
  it('splits host and port, with every interface for an empty host and IPv6 in brackets', () => {
    expect(parseListenAddress(':9645')).toEqual({ host: undefined, port: 9645 });
    expect(parseListenAddress('127.0.0.1:80')).toEqual({ host: '127.0.0.1', port: 80 });
    expect(parseListenAddress('[::1]:9645')).toEqual({ host: '::1', port: 9645 });
  });
});
