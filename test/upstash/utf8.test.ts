import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { limitSampleLabels } from '../../src/metrics/label-limit.js';
import { queueSamples } from '../../src/sources/queues.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { fetchQueues } from '../../src/upstash/queues.js';
import { decodeUtf8 } from '../../src/upstash/utf8.js';
import { startLocalServer, type LocalServer } from './local-server.js';

/** The bytes `text` came from: an escaped byte (lone U+DC80–U+DCFF) back to itself, the rest UTF-8. */
function encodeEscaped(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const char of text) {
    const code = char.codePointAt(0)!;
    parts.push(code >= 0xdc80 && code <= 0xdcff ? Buffer.from([code - 0xdc00]) : Buffer.from(char, 'utf8'));
  }
  return Buffer.concat(parts);
}

describe('decodeUtf8', () => {
  test('valid UTF-8 decodes as usual, a byte-order mark kept (JSON.parse refuses it, as before)', () => {
    for (const text of ['', 'plain', 'café ☕ 𝄞', '\uFEFF[]'])
      expect(decodeUtf8(Buffer.from(text, 'utf8'))).toBe(text);
  });

  test('every byte outside valid UTF-8 is kept apart, as the lone surrogate U+DC00 + byte', () => {
    expect(decodeUtf8(Buffer.from([0x71, 0xff]))).toBe('q\uDCFF');
    expect(decodeUtf8(Buffer.from([0x71, 0xfe]))).toBe('q\uDCFE');
    // An overlong form, an encoded surrogate, a sequence cut short, a stray continuation byte.
    expect(decodeUtf8(Buffer.from([0xc0, 0xaf]))).toBe('\uDCC0\uDCAF');
    expect(decodeUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBe('\uDCED\uDCA0\uDC80');
    expect(decodeUtf8(Buffer.from([0xe2, 0x98, 0x41]))).toBe('\uDCE2\uDC98A');
    expect(decodeUtf8(Buffer.from([0x80, 0xc3, 0xa9]))).toBe('\uDC80é');
  });

  test('any bytes: decoding loses nothing, and agrees with the usual decoder where the bytes are valid', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (array) => {
        const bytes = Buffer.from(array);
        const text = decodeUtf8(bytes);
        expect(encodeEscaped(text)).toEqual(bytes);
        expect(text.replace(/[\uDC80-\uDCFF]/g, '\uFFFD').length).toBeGreaterThanOrEqual(
          bytes.toString('utf8').length,
        );
      }),
      { numRuns: 500 },
    );
  });
});

describe('names that differ only in invalid UTF-8 bytes', () => {
  let server: LocalServer | undefined;
  let client: UpstashClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.stop();
  });

  test('stay two queues, and two series with distinct labels, instead of failing the listing', async () => {
    const body = Buffer.concat([
      Buffer.from('[{"name":"orders-'),
      Buffer.from([0xff]),
      Buffer.from('","lag":1},{"name":"orders-'),
      Buffer.from([0xfe]),
      Buffer.from('","lag":2}]'),
    ]);
    server = await startLocalServer((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.end(body);
    });
    client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    const { entries } = await fetchQueues(client, {
      baseUrl: server.url,
      credentials: { api: 'qstash', token: { reveal: () => 'token' } },
    });
    expect(entries.map((q) => q.lag)).toEqual([1, 2]);
    const lags = limitSampleLabels(queueSamples('eu', entries, 10)).samples.filter(
      (s) => s.metric.name === 'upstash_qstash_queue_lag',
    );
    const names = lags.map((s) => s.labels[1]![1]);
    expect(new Set(names).size).toBe(2);
    // What Prometheus receives is valid UTF-8: the bad byte shows as U+FFFD, the hash keeps them apart.
    for (const name of names) {
      expect(name).toMatch(/^orders-\uFFFD~[0-9a-f]{16}$/);
      expect(Buffer.from(name, 'utf8').toString('utf8')).toBe(name);
    }
  });
});
