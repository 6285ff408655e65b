import { describe, expect, test } from 'vitest';
import {
  AbortedError,
  HttpStatusError,
  InvalidResponseError,
  NetworkError,
  TimeoutError,
} from '../../src/upstash/errors.js';
import { excerpt, MAX_EXCERPT_LENGTH } from '../../src/upstash/excerpt.js';

// The one rule for quoting a URL or an upstream value in an error message or a log line.

describe('excerpt', () => {
  test('a text within the bound is quoted whole', () => {
    for (const text of ['', 'GET https://qstash.upstash.io/v2/dlq?count=100', 'x'.repeat(MAX_EXCERPT_LENGTH)])
      expect(excerpt(text)).toBe(text);
  });

  test('a longer one is cut to the bound, saying how long it was', () => {
    const text = `https://qstash.upstash.io/v2/dlq?cursor=${'c'.repeat(200_000)}`;
    const cut = excerpt(text);
    expect(cut).toBe(`${text.slice(0, MAX_EXCERPT_LENGTH)}… (${text.length} characters)`);
    expect(excerpt(text, 10)).toBe('https://qs… (200040 characters)');
  });

  test('never cuts between the halves of a surrogate pair', () => {
    const text = `${'a'.repeat(9)}😀${'b'.repeat(20)}`;
    expect(excerpt(text, 10)).toBe(`${'a'.repeat(9)}… (31 characters)`);
    expect(excerpt(text, 11)).toBe(`${'a'.repeat(9)}😀… (31 characters)`);
  });
});

describe('error messages quote an excerpt of the URL and of the problem', () => {
  const url = `https://qstash.upstash.io/v2/dlq?count=100&cursor=${'k'.repeat(200_000)}`;
  test.each<[string, Error]>([
    ['HTTP status', new HttpStatusError('GET', url, 431)],
    ['timeout', new TimeoutError('GET', url, 1000)],
    ['network', new NetworkError('GET', url, { code: 'E'.repeat(200_000) })],
    ['invalid response', new InvalidResponseError('GET', url, `wrong ${'p'.repeat(200_000)}`)],
    ['aborted', new AbortedError('GET', url)],
  ])('%s', (_, error) => {
    expect(error.message.length).toBeLessThan(3 * MAX_EXCERPT_LENGTH);
    expect(error.message).toContain('GET https://qstash.upstash.io/v2/dlq?count=100&cursor=kkk');
    expect(error.message).toContain(`(${url.length} characters)`);
  });
});
