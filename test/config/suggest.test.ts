import { describe, expect, test } from 'vitest';
import { editDistance, nearest } from '../../src/config/suggest.js';

describe('editDistance', () => {
  test.each([
    ['token', 'token', 0],
    ['tokne', 'token', 1], // two neighbours swapped
    ['timout', 'timeout', 1],
    ['listen_adress', 'listen_address', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('%j → %j: %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('nearest', () => {
  const KEYS = ['timeout', 'retries', 'concurrency', 'max_response_size'];

  test('a slip finds its key, whatever the case', () => {
    expect(nearest('retires', KEYS)).toBe('retries');
    expect(nearest('Timeout', KEYS)).toBe('timeout');
    expect(nearest('max_respons_size', KEYS)).toBe('max_response_size');
  });

  test('a word far from every key finds none', () => {
    expect(nearest('colour', KEYS)).toBeUndefined();
    expect(nearest('tls', KEYS)).toBeUndefined();
    expect(nearest('x', [])).toBeUndefined();
  });
});
