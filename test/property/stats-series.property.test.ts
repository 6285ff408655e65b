import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  QSTASH_NUMBER_FIELDS,
  QSTASH_SERIES_FIELDS,
  QSTASH_SUM_FIELDS,
  parseQstashStats,
} from '../../src/upstash/qstash-stats.js';
import { INDEX_NUMBER_FIELDS, INDEX_SERIES_FIELDS, parseIndexStats } from '../../src/upstash/index-stats.js';
import { NUMBER_FIELDS, SERIES_FIELDS, parseRedisStats } from '../../src/upstash/redis-stats.js';
import { FUTURE_HORIZON_MS } from '../../src/upstash/stats-series.js';

// Every stats parser goes through the same cases: the series rules (docs/metrics.md, Redis database
// statistics) are one rule, whichever API the body comes from. A new stats parser joins by adding a line
// here.
interface StatsParser {
  readonly series: readonly string[];
  readonly numbers: readonly string[];
  parse(json: unknown, nowMs: number): { values: object; rejected: readonly string[] };
}
const PARSERS: Record<string, StatsParser> = {
  redis_stats: {
    series: SERIES_FIELDS,
    numbers: NUMBER_FIELDS,
    parse: (json, now) => parseRedisStats(json, 'stats', now),
  },
  qstash_stats: {
    series: QSTASH_SERIES_FIELDS,
    numbers: QSTASH_NUMBER_FIELDS,
    parse: (json, now) => parseQstashStats(json, 'stats', now),
  },
  // vector_stats and search_stats: one parser for both products.
  index_stats: {
    series: INDEX_SERIES_FIELDS,
    numbers: INDEX_NUMBER_FIELDS,
    parse: (json, now) => parseIndexStats(json, 'stats', now),
  },
};

const NOW_S = Date.UTC(2025, 9, 3, 12, 0, 0) / 1000;
const NOW_MS = NOW_S * 1000;
const HORIZON_NS = BigInt(NOW_MS + FUTURE_HORIZON_MS) * 1_000_000n;

/** Go's format of a time `seconds` after NOW, with `nanos` as nine fraction digits (or none). */
function goTime(seconds: number, nanos: number): string {
  const whole = new Date((NOW_S + seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return `${whole}${nanos === 0 ? '' : `.${String(nanos).padStart(9, '0')}`} +0000 UTC`;
}

/** A point, and what the rules say of it: a usable value at a time, skipped, or malformed. */
type Case =
  | { readonly kind: 'value'; readonly at: bigint; readonly y: number; readonly point: object }
  | { readonly kind: 'skipped' | 'malformed'; readonly point: unknown };

const time = fc.oneof(
  {
    arbitrary: fc.record({
      seconds: fc.integer({ min: -864_000, max: 864_000 }),
      nanos: fc.nat(999_999_999),
    }),
    weight: 3,
  },
  // One instant met again in a series (the first point listed at it is the value), and the horizon
  // itself, to the nanosecond.
  fc.constantFrom(
    { seconds: -60, nanos: 0 },
    { seconds: FUTURE_HORIZON_MS / 1000, nanos: 0 },
    { seconds: FUTURE_HORIZON_MS / 1000, nanos: 1 },
  ),
);
const y = fc.double({ noNaN: true, noDefaultInfinity: true });
const valueOrFuture = fc.record({ time, y }).map(({ time: t, y: v }): Case => {
  const at = BigInt(NOW_S + t.seconds) * 1_000_000_000n + BigInt(t.nanos);
  const point = { x: goTime(t.seconds, t.nanos), y: v };
  return at > HORIZON_NS ? { kind: 'skipped', point } : { kind: 'value', at, y: v, point };
});
const skipped = fc.oneof(
  fc.constant<Case>({ kind: 'skipped', point: { y: null } }),
  fc.constant<Case>({ kind: 'skipped', point: { x: 'yesterday', y: null } }),
  time.map((t): Case => ({ kind: 'skipped', point: { x: goTime(t.seconds, t.nanos), y: null } })),
);
const malformed = fc.oneof(
  fc.constant<Case>({ kind: 'malformed', point: { y: 1 } }),
  fc.constant<Case>({ kind: 'malformed', point: { x: 'yesterday', y: 1 } }),
  fc.constant<Case>({ kind: 'malformed', point: { x: goTime(0, 0), y: '4' } }),
  fc.constant<Case>({ kind: 'malformed', point: { x: goTime(0, 0) } }),
  fc.constant<Case>({ kind: 'malformed', point: { x: goTime(0, 0), y: Infinity } }),
  fc.constantFrom<Case>(
    { kind: 'malformed', point: null },
    { kind: 'malformed', point: 5 },
    { kind: 'malformed', point: [goTime(0, 0), 1] },
  ),
);

/** What the rules expect of a series: rejected, or the y of the greatest x (the first of equals). */
function expected(cases: readonly Case[]): { rejected: boolean; y: number | undefined } {
  if (cases.some((c) => c.kind === 'malformed')) return { rejected: true, y: undefined };
  let latest: { at: bigint; y: number } | undefined;
  for (const c of cases) if (c.kind === 'value' && (latest === undefined || c.at > latest.at)) latest = c;
  return { rejected: false, y: latest?.y };
}

describe.each(Object.entries(PARSERS))('%s follows the one series rule', (_, parser) => {
  test('a null y without an x beside a valid point is skipped; the valid point is the value', () => {
    for (const field of parser.series) {
      const parsed = parser.parse({ [field]: [{ x: goTime(-60, 0), y: 7 }, { y: null }] }, NOW_MS);
      expect(parsed.rejected).toEqual([]);
      expect(parsed.values).toEqual({ [field]: 7 });
    }
  });

  test('any series: the latest usable point by time, or the whole field rejected alone', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...parser.series),
        fc.array(fc.oneof({ arbitrary: valueOrFuture, weight: 4 }, skipped, malformed), { maxLength: 8 }),
        (field, cases) => {
          const parsed = parser.parse({ [field]: cases.map((c) => c.point) }, NOW_MS);
          const want = expected(cases);
          expect(parsed.rejected).toEqual(want.rejected ? [field] : []);
          expect(parsed.values).toEqual(want.y === undefined ? {} : { [field]: want.y });
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a body that is not an object is invalid_response, and says so', () => {
    for (const body of [[], null, 'stats', 4]) {
      expect(() => parser.parse(body, NOW_MS)).toThrow(
        expect.objectContaining({
          name: 'InvalidResponseError',
          message: expect.stringContaining('wrong shape at top level: expected an object') as unknown,
        }),
      );
    }
  });

  test('a number field: finite numbers kept, null absent, anything else (1e400 too) rejected alone', () => {
    for (const field of parser.numbers) {
      expect(parser.parse(JSON.parse(`{"${field}": 8024278031528736858}`), NOW_MS).values).toEqual({
        [field]: Number('8024278031528736858'),
      });
      expect(parser.parse({ [field]: null }, NOW_MS)).toMatchObject({ values: {}, rejected: [] });
      for (const bad of [`"17"`, '1e400', '-1e400', '[1]', 'true']) {
        const parsed = parser.parse(JSON.parse(`{"${field}": ${bad}}`), NOW_MS);
        expect(parsed).toMatchObject({ values: {}, rejected: [field] });
      }
    }
  });
});

// A sum (QStash's last hour, one point a minute) adds the very points the latest point is chosen
// from: one rule of what a usable point is, not a second copy of it.
describe('qstash_stats sums follow the same series rule', () => {
  test('any series: the sum of its usable points (0 for none), or the whole field rejected alone', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...QSTASH_SUM_FIELDS),
        fc.array(fc.oneof({ arbitrary: valueOrFuture, weight: 4 }, skipped, malformed), { maxLength: 8 }),
        (field, cases) => {
          const parsed = parseQstashStats({ [field]: cases.map((c) => c.point) }, 'stats', NOW_MS);
          const rejected = cases.some((c) => c.kind === 'malformed');
          let sum = 0;
          for (const c of cases) if (c.kind === 'value') sum += c.y;
          expect(parsed.rejected).toEqual(rejected ? [field] : []);
          expect(parsed.values).toEqual(rejected ? {} : { [field]: sum });
        },
      ),
      { numRuns: 300 },
    );
  });
});
