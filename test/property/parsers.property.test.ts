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
import { parseRedisStats, SERIES_FIELDS, NUMBER_FIELDS } from '../../src/upstash/redis-stats.js';
import { parseSchedules } from '../../src/upstash/schedules.js';
import { parseUrlGroups } from '../../src/upstash/url-groups.js';

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

// Values close to the real shapes reach deeper into the parsers than random JSON does.
const number = fc.oneof(fc.double(), fc.integer(), fc.constant(null), fc.string());
const goTime = fc.oneof(
  fc
    .tuple(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }), fc.nat(9))
    .map(
      ([d, digits]) =>
        `${d.toISOString().slice(0, 19).replace('T', ' ')}${digits === 0 ? '' : `.${'123456789'.slice(0, digits)}`} +0000 UTC`,
    ),
  fc.string(),
);
const point = fc.record({ x: goTime, y: number }, { requiredKeys: [] });
const nearStats = fc.dictionary(
  fc.constantFrom(...SERIES_FIELDS, ...NUMBER_FIELDS, 'days', 'command_counts'),
  fc.oneof(fc.array(point, { maxLength: 5 }), number, fc.jsonValue()),
);
const nearFlow = fc.oneof(
  fc.array(
    fc.record(
      { flowControlKey: fc.oneof(fc.string(), fc.integer()), waitListSize: number },
      { requiredKeys: [] },
    ),
  ),
  fc.record({ flowControls: fc.array(fc.record({ flowControlKey: fc.string(), waitListSize: number })) }),
);
const nearGroups = fc.array(
  fc.record(
    {
      name: fc.oneof(fc.string(), fc.constant(null)),
      createdAt: number,
      updatedAt: number,
      endpoints: fc.oneof(
        fc.array(
          fc.record(
            { name: fc.string(), url: fc.oneof(fc.string(), fc.integer()) },
            { requiredKeys: ['url'] },
          ),
        ),
        fc.jsonValue(),
      ),
    },
    { requiredKeys: [] },
  ),
);

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
        fc.asyncProperty(fc.oneof(nearStats, nearFlow, nearGroups), async (json) => {
          await onlyInvalidResponse(parse, json);
        }),
        { numRuns: 500 },
      );
    });
  }

  test('a well-formed stats body always yields finite numbers for the fields it had', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(...SERIES_FIELDS),
          fc.array(
            fc.record({
              x: goTime.filter((x) => x.endsWith('UTC')),
              y: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
            }),
            { maxLength: 4 },
          ),
        ),
        (json) => {
          const stats = parseRedisStats(json);
          for (const value of Object.values(stats.values)) expect(Number.isFinite(value)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
