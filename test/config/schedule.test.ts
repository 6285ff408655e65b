import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  intervalToCron,
  parseDuration,
  scheduleFromCron,
  scheduleFromInterval,
} from '../../src/config/schedule.js';

describe('parseDuration', () => {
  test.each([
    ['1s', 1000],
    ['30s', 30_000],
    ['90s', 90_000],
    ['1m', 60_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['24h', 86_400_000],
    ['120m', 7_200_000],
  ])('%s → %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each([
    '',
    's',
    '0s',
    '00s',
    '05s',
    '1',
    '30',
    '1.5s',
    '-1s',
    '+1s',
    '1 s',
    ' 1s',
    '1s ',
    '1ms',
    '1d',
    '1S',
    '1h30m',
    '1e3s',
  ])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('intervalToCron', () => {
  test.each([
    [1000, '*/1 * * * * *'],
    [2000, '*/2 * * * * *'],
    [15_000, '*/15 * * * * *'],
    [30_000, '*/30 * * * * *'],
    [60_000, '0 */1 * * * *'],
    [120_000, '0 */2 * * * *'],
    [1_800_000, '0 */30 * * * *'],
    [3_600_000, '0 0 */1 * * *'],
    [7_200_000, '0 0 */2 * * *'],
    [43_200_000, '0 0 */12 * * *'],
    [86_400_000, '0 0 0 * * *'],
  ])('%i ms → %s', (ms, cron) => {
    expect(intervalToCron(ms)).toEqual({ cron });
  });

  test('every divisor of 60 s, 60 m and 24 h is accepted, nothing else below a day', () => {
    const accepted: number[] = [];
    for (let seconds = 1; seconds <= 86_400; seconds++) {
      if ('cron' in intervalToCron(seconds * 1000)) accepted.push(seconds);
    }
    const divisors = (n: number): number[] =>
      Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);
    const expected = [
      ...divisors(60).filter((d) => d < 60),
      ...divisors(60)
        .filter((d) => d < 60)
        .map((m) => m * 60),
      ...divisors(24).map((h) => h * 3600),
    ];
    expect(accepted).toEqual(expected);
  });

  test.each([
    0,
    500,
    1500,
    7000,
    45_000,
    90_000,
    25 * 60_000,
    90 * 60_000,
    5 * 3_600_000,
    48 * 3_600_000,
    -1000,
    Number.NaN,
  ])('%i ms is rejected with the reason and the way out', (ms) => {
    const result = intervalToCron(ms);
    expect(result).toHaveProperty('error');
    const { error } = result as { error: string };
    expect(error).toMatch(/cron can express evenly/);
    expect(error).toMatch(/divisor of 60s/);
    expect(error).toMatch(/`schedule`/);
  });
});

describe('scheduleFromInterval', () => {
  test('combines parsing and the cron check', () => {
    expect(scheduleFromInterval('30s')).toEqual({ cron: '*/30 * * * * *', intervalMs: 30_000 });
    expect(scheduleFromInterval('2m')).toEqual({ cron: '0 */2 * * * *', intervalMs: 120_000 });
    expect(scheduleFromInterval('thirty')).toEqual({ error: 'must be a duration like 30s, 5m or 1h' });
    expect(scheduleFromInterval('7s')).toHaveProperty('error', expect.stringMatching(/cron/));
  });
});

describe('scheduleFromCron', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test.each([
    ['*/20 * * * * *', 20_000],
    ['* * * * * *', 1000],
    ['0 */5 * * * *', 300_000],
    ['30 0 * * * *', 3_600_000],
  ])('%s runs every %i ms', (cron, intervalMs) => {
    expect(scheduleFromCron(cron)).toEqual({ cron, intervalMs });
  });

  test('a weekday schedule is measured by its longest gap, the weekend, even from a Monday morning', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2025, 8, 1, 6, 0, 0)); // Monday 1 September 2025, local time
    expect(scheduleFromCron('0 0 9 * * 1-5')).toEqual({ cron: '0 0 9 * * 1-5', intervalMs: 3 * 86_400_000 });
  });

  test.each([5, 55])(
    'an irregular schedule gets its longest gap whatever the start second (%i)',
    (second) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(2025, 8, 1, 6, 0, second));
      expect(scheduleFromCron('0,10 * * * * *')).toEqual({ cron: '0,10 * * * * *', intervalMs: 50_000 });
    },
  );

  test('surrounding whitespace is tolerated and the expression kept as given', () => {
    expect(scheduleFromCron(' */10 * * * * * ')).toEqual({ cron: ' */10 * * * * * ', intervalMs: 10_000 });
  });

  test.each(['*/5 * * * *', '0 0 * * * * *', '', '@hourly'])('%j has the wrong number of fields', (cron) => {
    expect(scheduleFromCron(cron)).toEqual({
      error: 'must be a node-cron expression with 6 fields (seconds first)',
    });
  });

  test.each(['60 * * * * *', '*/0 * * * * *', '0 0 0 * * 8', '0 0 0 30 2 *', 'a b c d e f'])(
    '%j is not valid',
    (cron) => {
      expect(scheduleFromCron(cron)).toEqual({ error: 'is not a valid node-cron expression' });
    },
  );
});
