import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { fromWire, toWire } from '../../src/worker/protocol.js';
import { testConfig, API_KEY, QSTASH_TOKEN } from '../helpers/harness.js';

describe('the configuration as it crosses to the poll worker', () => {
  it('survives a structured clone with its credentials, which are Secrets again on the other side', () => {
    const config = testConfig('http://127.0.0.1:1');
    const crossed = fromWire(structuredClone(toWire(config)));
    expect(crossed.qstash[0]?.token).toBeInstanceOf(Secret);
    expect(crossed.qstash[0]?.token.reveal()).toBe(QSTASH_TOKEN);
    expect(crossed.management[0]?.apiKey.reveal()).toBe(API_KEY);
    // Everything else is as it was; and what is crossed prints no credential once it is a Config.
    expect({ ...crossed, qstash: [], management: [] }).toEqual({ ...config, qstash: [], management: [] });
    expect(JSON.stringify(crossed)).not.toContain(QSTASH_TOKEN);
    expect(JSON.stringify(crossed)).not.toContain(API_KEY);
  });
});
