import { describe, expect, test } from 'vitest';
import { anchoredRegex, regexProblem } from '../../src/metrics/relabel-regex.js';

const matches = (pattern: string, value: string): boolean => {
  expect(regexProblem(pattern)).toBeUndefined();
  return anchoredRegex(pattern).test(value);
};

describe('RE2 syntax means what it means in Prometheus and Go', () => {
  test.each([
    ['POSIX class', '[[:digit:]]+', '2025', 'v2'],
    ['Unicode class', '\\pL+', 'Zürich', 'a1'],
    ['Unicode script', '\\p{Greek}+', 'αβγ', 'abc'],
    ['quoted literal text', '\\Qa.b*\\E', 'a.b*', 'axbb'],
    ['case-insensitive flag', '(?i)prod-.*', 'PROD-cache', 'stage'],
    ['scoped flag', '(?i:prod)-x', 'Prod-x', 'Prod-X'],
    ['named group, Go style', '(?P<env>prod|stage)-.*', 'stage-1', 'dev-1'],
    ['Perl classes', '\\w+-\\d+', 'cache-12', 'cache-x'],
    ['word boundary', '.*\\bx', 'a-x', 'ax'],
    ['lazy and counted repetition', 'a{2,3}?b', 'aab', 'ab'],
    ['ungreedy flag', '(?U)a+', 'aaa', 'b'],
  ])('%s: %s', (_, pattern, yes, no) => {
    expect(matches(pattern, yes)).toBe(true);
    expect(matches(pattern, no)).toBe(false);
  });

  test('anchored at both ends, alternation included; `.` matches a newline, as Prometheus compiles (?s:)', () => {
    expect(matches('prod', 'prod-cache')).toBe(false);
    expect(matches('a|b', 'ab')).toBe(false);
    expect(matches('a|b', 'b')).toBe(true);
    expect(matches('prod-.*', 'prod-a\nb')).toBe(true);
    expect(matches('a', 'a\n')).toBe(false);
  });

  test.each([
    ['(unclosed', 'missing closing )'],
    ['a)|(b', 'unexpected )'],
    ['[z-a]', 'invalid character class range'],
    ['(a)\\1', 'invalid escape sequence'],
    ['(?=a)', 'invalid or unsupported Perl syntax'],
    ['a**', 'invalid nested repetition operator'],
    ['a{1001}', 'invalid repeat count'],
    ['\\', 'trailing backslash at end of expression'],
  ])('%s is refused with RE2’s reason, without quoting the expression', (pattern, reason) => {
    const problem = regexProblem(pattern);
    expect(problem).toBe(`is not a valid regular expression (RE2 syntax): ${reason}`);
    expect(problem).not.toContain(pattern);
  });
});

describe('matching time is linear in the name', () => {
  test('`.*-.*-.*-x` against a 100,000-character name ends in seconds where backtracking takes hours', () => {
    // JavaScript's backtracking RegExp takes seconds on this at 4,000 characters (cubic in the name),
    // so hours at 100,000; linear matching takes milliseconds. The bound sits between, far from both.
    const name = 'a-'.repeat(50_000);
    const started = performance.now();
    expect(anchoredRegex('.*-.*-.*-x').test(name)).toBe(false);
    expect(anchoredRegex('(a|a)*-(.*-)*y').test(name)).toBe(false);
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
