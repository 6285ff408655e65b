import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseDatabases } from '../../src/upstash/databases.js';
import { InvalidResponseError } from '../../src/upstash/errors.js';
import { parseFlowControl } from '../../src/upstash/flow-control.js';
import { parseGlobalParallelism } from '../../src/upstash/global-parallelism.js';
import { parseIndexStats } from '../../src/upstash/index-stats.js';
import { parseIndexes } from '../../src/upstash/indexes.js';
import { parseQstashStats } from '../../src/upstash/qstash-stats.js';
import { parseQstashUsers } from '../../src/upstash/qstash-users.js';
import { parseQueues } from '../../src/upstash/queues.js';
import { parseBackups } from '../../src/upstash/redis-backups.js';
import { parseRedisStats, SERIES_FIELDS } from '../../src/upstash/redis-stats.js';
import { parseSchedules } from '../../src/upstash/schedules.js';
import { parseUrlGroups } from '../../src/upstash/url-groups.js';
import type { Listing } from '../../src/upstash/schema.js';
import { FUTURE_HORIZON_MS } from '../../src/upstash/stats-series.js';
import { goTimeText, NEAR } from './near-shapes.js';

// Whatever JSON Upstash sends, a parser either returns plain data or throws InvalidResponseError
// (counted as `invalid_response`); nothing else may escape the boundary.

const PARSERS = {
  flow_control: (json: unknown) => parseFlowControl(json),
  url_groups: (json: unknown) => parseUrlGroups(json),
  redis_stats: (json: unknown) => parseRedisStats(json),
  databases: (json: unknown) => parseDatabases(json),
  qstash_users: (json: unknown) => parseQstashUsers(json),
  qstash_stats: (json: unknown) => parseQstashStats(json),
  queues: (json: unknown) => parseQueues(json),
  schedules: (json: unknown) => parseSchedules(json),
  global_parallelism: (json: unknown) => parseGlobalParallelism(json),
  indexes: (json: unknown) => parseIndexes(json),
  index_stats: (json: unknown) => parseIndexStats(json),
  redis_backups: (json: unknown) => parseBackups(json),
};

async function onlyInvalidResponse(parse: (json: unknown) => unknown, json: unknown): Promise<void> {
  try {
    await parse(json);
  } catch (error) {
    if (!(error instanceof InvalidResponseError)) throw error;
    expect(error.reason).toBe('invalid_response');
  }
}

/**
 * Whether a parser's answer holds something, i.e. its mapping code ran on at least one entry or field
 * (a listing's entries, a stats body's figures, a parallelism that is set).
 */
const REACHED: Record<keyof typeof PARSERS, (parsed: never) => boolean> = {
  flow_control: (l: Listing<unknown>) => l.entries.length > 0,
  url_groups: (l: Listing<unknown>) => l.entries.length > 0,
  redis_stats: (s: { values: object; commands: ReadonlyMap<string, number> }) =>
    Object.keys(s.values).length > 0 || s.commands.size > 0,
  databases: (l: Listing<unknown>) => l.entries.length > 0,
  qstash_users: (l: Listing<unknown>) => l.entries.length > 0,
  qstash_stats: (s: { values: object; states: object }) =>
    Object.keys(s.values).length > 0 || Object.keys(s.states).length > 0,
  queues: (l: Listing<unknown>) => l.entries.length > 0,
  schedules: (l: Listing<unknown>) => l.entries.length > 0,
  global_parallelism: (g: { max?: number; inUse: number }) => g.max !== undefined || g.inUse !== 0,
  indexes: (l: Listing<unknown>) => l.entries.length > 0,
  index_stats: (s: { values: object }) => Object.keys(s.values).length > 0,
  redis_backups: (b: { counts: Record<string, number> }) => Object.values(b.counts).some((n) => n > 0),
};

/** Any parser's near shape: each parser meets the others' bodies as well as its own. */
const nearAny = fc.oneof(...Object.values(NEAR));

/** How many of a fixed sample of each parser's near shapes it parses to something (measured: see below). */
const SAMPLES = 400;
/** At least this share of its own near shapes reaches each parser's mapping. */
const REACHED_FLOOR = 0.3;

describe('response parsers never throw anything but InvalidResponseError', () => {
  for (const [name, parse] of Object.entries(PARSERS)) {
    test(`${name}: arbitrary JSON`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (json) => {
          await onlyInvalidResponse(parse, json);
        }),
        { numRuns: 500 },
      );
    });
    test(`${name}: JSON close to every shape`, async () => {
      await fc.assert(
        fc.asyncProperty(nearAny, async (json) => {
          await onlyInvalidResponse(parse, json);
        }),
        { numRuns: 500 },
      );
    });
  }

  for (const [name, parse] of Object.entries(PARSERS) as [
    keyof typeof PARSERS,
    (json: unknown) => unknown,
  ][]) {
    test(`${name}: its near shapes reach its mapping code`, async () => {
      let reached = 0;
      for (const json of fc.sample(NEAR[name], { numRuns: SAMPLES, seed: 47 })) {
        try {
          if (REACHED[name]((await parse(json)) as never)) reached++;
        } catch (error) {
          if (!(error instanceof InvalidResponseError)) throw error;
        }
      }
      expect(reached / SAMPLES).toBeGreaterThanOrEqual(REACHED_FLOOR);
    });
  }

  test('a well-formed stats body yields, for each field it had, the y of its latest point not ahead of now', () => {
    // Times of whole seconds with 0-9 digits of fraction, so that the latest is known without the
    // parser's own reading of Go times; about half lie past the horizon, and are skipped.
    const nowMs = 2e12;
    const timedPoint = fc.record({
      date: fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }),
      digits: fc.nat(9),
      y: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
    });
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...SERIES_FIELDS), fc.array(timedPoint, { maxLength: 4 })),
        (fields) => {
          const json = Object.fromEntries(
            Object.entries(fields).map(([field, points]) => [
              field,
              points.map(({ date, digits, y }) => ({ x: goTimeText(date, digits), y })),
            ]),
          );
          const stats = parseRedisStats(json, 'stats', nowMs);
          const expected: Record<string, number> = {};
          for (const [field, points] of Object.entries(fields)) {
            let latest: { ns: bigint; y: number } | undefined;
            for (const { date, digits, y } of points) {
              const ns =
                BigInt(Math.floor(date.getTime() / 1000)) * 1_000_000_000n +
                BigInt('123456789'.slice(0, digits).padEnd(9, '0'));
              if (y === null || ns > BigInt(nowMs + FUTURE_HORIZON_MS) * 1_000_000n) continue;
              if (latest === undefined || ns > latest.ns) latest = { ns, y };
            }
            if (latest !== undefined) expected[field] = latest.y;
          }
          expect(stats.values).toEqual(expected);
          expect(stats.rejected).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
