import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { HeadCounter } from '../../src/server/screened-socket.js';

const REQUEST = 'GET /metrics HTTP/1.1\r\nHost: exporter\r\n\r\n';

/** `text` cut at `cuts` (offsets, any order, duplicates allowed) into chunks. */
function chunks(text: string, cuts: readonly number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [...new Set([0, ...cuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort(
    (a, b) => a - b,
  );
  return at.slice(1).map((end, i) => bytes.subarray(at[i], end));
}

describe('HeadCounter', () => {
  test('counts each request head once, wherever the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (requests, cuts) => {
          const counter = new HeadCounter();
          const counted = chunks(REQUEST.repeat(requests), cuts).reduce(
            (sum, chunk) => sum + counter.count(chunk, Infinity),
            0,
          );
          expect(counted).toBe(requests);
        },
      ),
    );
  });

  test('stops counting one past what the caller allows', () => {
    const counter = new HeadCounter();
    expect(counter.count(Buffer.from(REQUEST.repeat(1500)), 4)).toBe(5);
    expect(new HeadCounter().count(Buffer.from(REQUEST.repeat(3)), 4)).toBe(3);
  });

  test('a partial head is carried to the next chunk only as its last bytes', () => {
    const counter = new HeadCounter();
    expect(counter.count(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r'), 4)).toBe(0);
    expect(counter.count(Buffer.from('\n'), 4)).toBe(1);
    expect(counter.count(Buffer.from('\r\n'), 4)).toBe(0);
  });
});
