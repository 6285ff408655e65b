import { describe, expect, test } from 'vitest';
import { formatGoTime } from '../../src/demo/simulator.js';
import { parseGoTime, parseGoTimeNs } from '../../src/upstash/go-time.js';

const BASE = Date.UTC(2025, 7, 31, 15, 12, 52); // 2025-08-31 15:12:52 UTC

describe('parseGoTime', () => {
  test('the example from the API, with nine fraction digits', () => {
    const ms = parseGoTime('2025-08-31 15:12:52.799480932 +0000 UTC');
    expect(ms).toBeCloseTo(BASE + 799.480932, 5);
  });

  test.each([
    ['', 0],
    ['.5', 500],
    ['.79', 790],
    ['.799', 799],
    ['.7994', 799.4],
    ['.79948', 799.48],
    ['.799480', 799.48],
    ['.7994809', 799.4809],
    ['.79948093', 799.48093],
    ['.799480932', 799.480932],
    ['.000000001', 0.000001],
  ])('fraction %j → %f ms', (fraction, ms) => {
    const parsed = parseGoTime(`2025-08-31 15:12:52${fraction} +0000 UTC`);
    expect(parsed).toBeDefined();
    expect(parsed! - BASE).toBeCloseTo(ms, 3);
  });

  test('ten fraction digits, or a dot without digits, are not Go time', () => {
    expect(parseGoTime('2025-08-31 15:12:52.7994809321 +0000 UTC')).toBeUndefined();
    expect(parseGoTime('2025-08-31 15:12:52. +0000 UTC')).toBeUndefined();
  });

  test('agrees with the simulator formatter, which is what the tests feed the exporter', () => {
    for (const ms of [0, BASE, Date.UTC(2024, 1, 29, 23, 59, 59), Date.UTC(1999, 11, 31, 0, 0, 0)]) {
      expect(parseGoTime(formatGoTime(ms))).toBe(ms);
      expect(parseGoTime(formatGoTime(ms, '25'))).toBe(ms + 250);
    }
  });

  test('points microseconds apart keep their order in milliseconds', () => {
    const xs = [
      '2025-08-31 15:12:52.799480 +0000 UTC',
      '2025-08-31 15:12:52.799481 +0000 UTC',
      '2025-08-31 15:12:52.799482 +0000 UTC',
      '2025-08-31 15:12:52.8 +0000 UTC',
      '2025-08-31 15:12:53 +0000 UTC',
    ];
    const parsed = xs.map((x) => parseGoTime(x)!);
    for (let i = 1; i < parsed.length; i++) expect(parsed[i]!).toBeGreaterThan(parsed[i - 1]!);
    const shuffled = [3, 0, 4, 2, 1].map((i) => xs[i]!);
    expect([...shuffled].sort((a, b) => parseGoTime(a)! - parseGoTime(b)!)).toEqual(xs);
  });

  test('parseGoTimeNs orders points that differ only in the last nanosecond digit', () => {
    const xs = [
      '2025-08-31 15:12:52.799480931 +0000 UTC',
      '2025-08-31 15:12:52.799480932 +0000 UTC',
      '2025-08-31 15:12:52.79948094 +0000 UTC',
      '2025-08-31 15:12:52.7994811 +0000 UTC',
    ];
    const parsed = xs.map((x) => parseGoTimeNs(x)!);
    expect(parsed).toEqual([
      1_756_653_172_799_480_931n,
      1_756_653_172_799_480_932n,
      1_756_653_172_799_480_940n,
      1_756_653_172_799_481_100n,
    ]);
    const shuffled = [2, 0, 3, 1].map((i) => xs[i]!);
    expect([...shuffled].sort((a, b) => Number(parseGoTimeNs(a)! - parseGoTimeNs(b)!))).toEqual(xs);
  });

  test('parseGoTimeNs agrees with parseGoTime on offsets and rejects what it rejects', () => {
    expect(parseGoTimeNs('2025-08-31 17:12:52.5 +0200 CEST')).toBe(BigInt(BASE) * 1_000_000n + 500_000_000n);
    expect(parseGoTimeNs('2025-02-29 12:00:00 +0000 UTC')).toBeUndefined();
    expect(parseGoTimeNs('garbage')).toBeUndefined();
  });

  test('a whole second sorts before the same second with a fraction', () => {
    expect(parseGoTime('2025-08-31 15:12:52 +0000 UTC')!).toBeLessThan(
      parseGoTime('2025-08-31 15:12:52.000001 +0000 UTC')!,
    );
  });

  test.each([
    ['2025-08-31 17:12:52 +0200 CEST', BASE],
    ['2025-08-31 08:12:52 -0700 MST', BASE],
    ['2025-08-31 20:42:52 +0530 IST', BASE],
    ['2025-09-01 00:12:52.5 +0900 JST', BASE + 500],
    ['2025-08-31 15:12:52 +0000', BASE],
  ])('offset: %s', (text, ms) => {
    expect(parseGoTime(text)).toBe(ms);
  });

  test('an offset that crosses a year boundary', () => {
    expect(parseGoTime('2025-12-31 23:30:00 -0100 XYZ')).toBe(Date.UTC(2026, 0, 1, 0, 30));
  });

  test.each([
    ['2024-02-29 12:00:00 +0000 UTC', Date.UTC(2024, 1, 29, 12)],
    ['2000-02-29 12:00:00 +0000 UTC', Date.UTC(2000, 1, 29, 12)],
    ['2025-12-31 23:59:59 +0000 UTC', Date.UTC(2025, 11, 31, 23, 59, 59)],
    ['2025-01-01 00:00:00 +0000 UTC', Date.UTC(2025, 0, 1)],
  ])('valid edge date %s', (text, ms) => {
    expect(parseGoTime(text)).toBe(ms);
  });

  test.each([
    '2025-02-29 12:00:00 +0000 UTC', // not a leap year
    '1900-02-29 12:00:00 +0000 UTC', // divisible by 100, not by 400
    '2025-02-30 12:00:00 +0000 UTC',
    '2025-04-31 12:00:00 +0000 UTC',
    '2025-13-01 12:00:00 +0000 UTC',
    '2025-00-10 12:00:00 +0000 UTC',
    '2025-08-00 12:00:00 +0000 UTC',
    '2025-08-31 24:00:00 +0000 UTC',
    '2025-08-31 23:60:00 +0000 UTC',
    '2025-08-31 23:59:60 +0000 UTC',
    '2025-08-31 15:12:52 +2400 UTC',
    '2025-08-31 15:12:52 +0060 UTC',
  ])('impossible date or time %s → undefined', (text) => {
    expect(parseGoTime(text)).toBeUndefined();
  });

  test.each([
    '',
    'yesterday',
    '2025-08-31T15:12:52Z', // ISO 8601 is not what the API sends
    '2025-08-31 15:12:52',
    '2025-08-31 15:12:52 UTC',
    '2025-8-31 15:12:52 +0000 UTC',
    '2025-08-31 15:12 +0000 UTC',
    ' 2025-08-31 15:12:52 +0000 UTC',
    '2025-08-31 15:12:52 +0000 UTC ',
    '2025-08-31 15:12:52 +00:00 UTC',
    '2025-08-31 15:12:52 +0000 UTC m=+0.000000001',
    '１２３４-08-31 15:12:52 +0000 UTC', // full-width digits are not \d in JS, but make sure
  ])('garbage %j → undefined', (text) => {
    expect(parseGoTime(text)).toBeUndefined();
  });
});

describe('every year 0000–9999 (Date.UTC reads 0–99 as 1900–1999)', () => {
  /** The exact Unix ms of a UTC date, through setUTCFullYear, which takes any year as it is. */
  const utc = (year: number, month: number, day: number): number => {
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    return date.getTime();
  };

  test.each([0, 1, 4, 99, 100, 399, 400, 1600, 1899, 1900, 1970, 2000, 9999])('year %i', (year) => {
    const y = String(year).padStart(4, '0');
    expect(parseGoTime(`${y}-03-01 00:00:00 +0000 UTC`)).toBe(utc(year, 3, 1));
    expect(parseGoTime(`${y}-12-31 23:59:59 +0000 UTC`)).toBe(utc(year, 12, 31) + 86_399_000);
  });

  test("Go's zero time is year 1, not 1901", () => {
    expect(parseGoTime('0001-01-01 00:00:00 +0000 UTC')).toBe(-62_135_596_800_000);
  });

  test('a point of year 0099 is older than one of 1998', () => {
    expect(parseGoTimeNs('0099-06-01 00:00:00 +0000 UTC')!).toBeLessThan(
      parseGoTimeNs('1998-06-01 00:00:00 +0000 UTC')!,
    );
  });

  test('leap days of years 0 (leap), 100 (not leap) and 400 (leap)', () => {
    expect(parseGoTime('0000-02-29 12:00:00 +0000 UTC')).toBe(utc(0, 2, 29) + 43_200_000);
    expect(parseGoTime('0100-02-29 12:00:00 +0000 UTC')).toBeUndefined();
    expect(parseGoTime('0400-02-29 12:00:00 +0000 UTC')).toBe(utc(400, 2, 29) + 43_200_000);
  });

  test('nanoseconds before 1970 order exactly', () => {
    expect(parseGoTimeNs('0001-01-01 00:00:00.000000001 +0000 UTC')).toBe(-62_135_596_800_000_000_000n + 1n);
  });
});
