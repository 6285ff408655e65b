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

/** One code point of each UTF-8 length alike: 1, 2, 3 (surrogates excepted) and 4 bytes. */
const codePoint = fc
  .oneof(
    fc.integer({ min: 0, max: 0x7f }),
    fc.integer({ min: 0x80, max: 0x7ff }),
    fc.integer({ min: 0x800, max: 0xffff }).filter((code) => code < 0xd800 || code > 0xdfff),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .map((code) => String.fromCodePoint(code));
const validText = fc.array(codePoint, { maxLength: 8 }).map((chars) => chars.join(''));
const badPiece = fc.oneof(
  fc.constantFrom(0xc0, 0xc1, 0xf5, 0xf8, 0xfe, 0xff).map((byte) => Buffer.from([byte])),
  codePoint
    .filter((char) => char.codePointAt(0)! >= 0x80)
    .map((char) => Buffer.from(char, 'utf8').subarray(0, -1)),
);
/** What the usual decoder makes of `text`'s bytes. */
const usual = (text: string): string => new TextDecoder().decode(Buffer.from(text, 'utf8'));
/** Each byte of `bytes` as its escape. */
const escaped = (bytes: Buffer): string => String.fromCharCode(...[...bytes].map((byte) => 0xdc00 + byte));

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
    // The second byte's narrower ranges (Unicode table 3-7): overlong 3- and 4-byte forms (E0, F0)
    // and code points past U+10FFFF (F4), each beside its valid neighbour.
    expect(decodeUtf8(Buffer.from([0xe0, 0x9f, 0xbf, 0xe0, 0xa0, 0x80]))).toBe('\uDCE0\uDC9F\uDCBF\u0800');
    expect(decodeUtf8(Buffer.from([0xf0, 0x8f, 0xbf, 0xbf, 0xf0, 0x90, 0x80, 0x80]))).toBe(
      '\uDCF0\uDC8F\uDCBF\uDCBF\u{10000}',
    );
    expect(decodeUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80, 0xf4, 0x8f, 0xbf, 0xbf]))).toBe(
      '\uDCF4\uDC90\uDC80\uDC80\u{10FFFF}',
    );
  });

  test('any bytes: decoding loses nothing', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (array) => {
        const bytes = Buffer.from(array);
        expect(encodeEscaped(decodeUtf8(bytes))).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });

  test('agrees with the usual decoder where the bytes are valid, with bad bytes around them', () => {
    // Valid text of every sequence length, between pieces that can never join a neighbour into valid
    // UTF-8: bytes no sequence has (C0, C1, F5–FF) and sequences cut before their last byte. At least
    // one piece, so that the slow path decodes it, not the native one.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(validText, badPiece), { minLength: 1, maxLength: 6 }),
        validText,
        (pairs, tail) => {
          const texts = [
            ...pairs.flatMap(([text, bad]) => [Buffer.from(text, 'utf8'), bad]),
            Buffer.from(tail, 'utf8'),
          ];
          const expected = pairs.map(([text, bad]) => usual(text) + escaped(bad)).join('') + usual(tail);
          expect(decodeUtf8(Buffer.concat(texts))).toBe(expected);
        },
      ),
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
