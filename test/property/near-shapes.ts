import fc from 'fast-check';
import { DATABASE_FEATURE_FIELDS, DATABASE_LIMIT_FIELDS } from '../../src/upstash/databases.js';
import { INDEX_NUMBER_FIELDS, INDEX_SERIES_FIELDS } from '../../src/upstash/index-stats.js';
import { INDEX_LIMIT_FIELDS } from '../../src/upstash/indexes.js';
import {
  QSTASH_NUMBER_FIELDS,
  QSTASH_SERIES_FIELDS,
  QSTASH_STATE_FIELDS,
  QSTASH_SUM_FIELDS,
} from '../../src/upstash/qstash-stats.js';
import { QSTASH_FEATURE_FIELDS, QSTASH_LIMIT_FIELDS } from '../../src/upstash/qstash-users.js';
import { NUMBER_FIELDS, SERIES_FIELDS } from '../../src/upstash/redis-stats.js';

// JSON close to each body the response parsers read: the right shape most of the time, each field
// now and then missing, null or of another type, so that a parser's mapping code is reached and not
// only its first refusal (test/property/parsers.property.test.ts measures how often).

/** A number field's value: mostly a number, sometimes null, text or a huge double. */
export const number = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })) },
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.string(), fc.double()) },
);

/** A Go time as Upstash writes it (`2026-11-01 12:00:00.123 +0000 UTC`), or sometimes any text. */
export const goTime = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }), fc.nat(9))
      .map(([date, digits]) => goTimeText(date, digits)),
  },
  { weight: 1, arbitrary: fc.string() },
);

/** `date` to the second, with `digits` digits of fraction, as a Go time. */
export function goTimeText(date: Date, digits: number): string {
  const fraction = digits === 0 ? '' : `.${'123456789'.slice(0, digits)}`;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}${fraction} +0000 UTC`;
}

/** Any value of another kind than the field expects, null included. */
const other = fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 1 }));

/** Mostly `good`, now and then of another type. */
const mostly = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: other });

const text = mostly(fc.string({ maxLength: 8 }));
const flag = mostly(fc.oneof(fc.boolean(), fc.constantFrom('true', 'false')));
const point = fc.record({ x: goTime, y: number }, { requiredKeys: [] });
const series = mostly(fc.array(point, { maxLength: 4 }));

/** An object with some of `fields`, each of `value`. */
const someOf = (fields: readonly string[], value: fc.Arbitrary<unknown>): fc.Arbitrary<object> =>
  fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: fields.length });

/**
 * A listing: entries with a key (mostly a distinct non-empty string: one bad or repeated key fails
 * the whole listing, by design) and some of their other fields.
 */
function listing(key: string, fields: fc.Arbitrary<object>): fc.Arbitrary<unknown[]> {
  const keyValue = fc.oneof(
    { weight: 12, arbitrary: fc.string({ minLength: 1, maxLength: 6 }) },
    { weight: 1, arbitrary: other },
  );
  return fc.uniqueArray(
    fc.tuple(keyValue, fields).map(([id, rest]) => ({ ...rest, [key]: id })),
    { maxLength: 4, selector: (entry) => JSON.stringify(entry[key]) },
  );
}

export const NEAR = {
  flow_control: listing(
    'flowControlKey',
    fc.record(
      {
        waitListSize: number,
        waitlistSize: number,
        isPaused: mostly(fc.boolean()),
        parallelismMax: number,
        parallelismCount: number,
        rateMax: number,
        rateCount: number,
        ratePeriod: number,
      },
      { requiredKeys: [] },
    ),
  ).chain((list) => fc.constantFrom<unknown>(list, { flowControls: list })),
  url_groups: listing(
    'name',
    fc.record(
      {
        createdAt: number,
        updatedAt: number,
        endpoints: mostly(
          fc.array(fc.record({ name: fc.string(), url: mostly(fc.webUrl()) }), { maxLength: 3 }),
        ),
      },
      { requiredKeys: [] },
    ),
  ),
  redis_stats: fc
    .record(
      {
        stats: someOf(SERIES_FIELDS, series),
        numbers: someOf(NUMBER_FIELDS, number),
        command_counts: mostly(
          fc.array(fc.record({ metric_identifier: fc.string({ maxLength: 6 }), data_points: series }), {
            maxLength: 3,
          }),
        ),
      },
      { requiredKeys: ['stats', 'numbers'] },
    )
    .map(({ stats, numbers, ...rest }) => ({ ...stats, ...numbers, ...rest })),
  databases: listing(
    'database_id',
    fc
      .tuple(
        fc.record(
          {
            database_name: mostly(fc.string({ maxLength: 6 })),
            type: text,
            region: text,
            primary_region: text,
            state: text,
            creation_time: number,
            replicas: number,
            read_regions: mostly(fc.array(fc.string(), { maxLength: 3 })),
            securityAddons: mostly(someOf(['ipWhitelisting', 'vpcPeering', 'privateLink'], flag)),
          },
          { requiredKeys: ['database_name'] },
        ),
        someOf(DATABASE_LIMIT_FIELDS, number),
        someOf(
          DATABASE_FEATURE_FIELDS.filter((field) => !field.includes('.')),
          flag,
        ),
      )
      .map(([fields, limits, features]) => ({ ...fields, ...limits, ...features })),
  ),
  qstash_users: listing(
    'id',
    fc
      .tuple(
        fc.record({ region: text, type: text, state: text }, { requiredKeys: [] }),
        someOf(QSTASH_LIMIT_FIELDS, number),
        someOf(QSTASH_FEATURE_FIELDS, flag),
      )
      .map(([fields, limits, features]) => ({ ...fields, ...limits, ...features })),
  ),
  qstash_stats: fc
    .tuple(
      someOf([...QSTASH_SERIES_FIELDS, ...QSTASH_SUM_FIELDS], series),
      someOf(QSTASH_NUMBER_FIELDS, number),
      someOf(
        QSTASH_STATE_FIELDS,
        mostly(
          fc.array(
            fc.record({ id: fc.constantFrom('DELIVERED', 'FAILED', 'RETRY', ''), data_points: series }),
            {
              maxLength: 3,
            },
          ),
        ),
      ),
    )
    .map(([seriesFields, numbers, states]) => ({ ...seriesFields, ...numbers, ...states })),
  queues: listing(
    'name',
    fc.record({ lag: number, parallelism: number, paused: mostly(fc.boolean()) }, { requiredKeys: [] }),
  ),
  schedules: listing(
    'scheduleId',
    fc.record(
      {
        cron: text,
        isPaused: mostly(fc.boolean()),
        nextScheduleTime: number,
        lastScheduleTime: number,
        lastScheduleStates: mostly(
          fc.dictionary(
            fc.string({ maxLength: 4 }),
            mostly(fc.constantFrom('SUCCESS', 'FAIL', 'IN_PROGRESS')),
            {
              maxKeys: 3,
            },
          ),
        ),
      },
      { requiredKeys: [] },
    ),
  ),
  global_parallelism: fc.record({ parallelismMax: number, parallelismCount: number }, { requiredKeys: [] }),
  indexes: listing(
    'id',
    fc
      .tuple(
        fc.record(
          {
            name: mostly(fc.string({ maxLength: 6 })),
            type: text,
            region: text,
            similarity_function: text,
            index_type: text,
            dimension_count: number,
          },
          { requiredKeys: ['name'] },
        ),
        someOf(INDEX_LIMIT_FIELDS, number),
      )
      .map(([fields, limits]) => ({ ...fields, ...limits })),
  ),
  index_stats: fc
    .tuple(someOf(INDEX_SERIES_FIELDS, series), someOf(INDEX_NUMBER_FIELDS, number))
    .map(([seriesFields, numbers]) => ({ ...seriesFields, ...numbers })),
  redis_backups: listing(
    'backup_id',
    fc.record(
      {
        state: mostly(fc.constantFrom('pending', 'completed', 'failed', 'restoring')),
        creation_time: number,
      },
      { requiredKeys: [] },
    ),
  ),
} satisfies Record<string, fc.Arbitrary<unknown>>;
