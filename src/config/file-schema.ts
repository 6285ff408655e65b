import { z } from 'zod';
import { checkListenAddress, LISTEN_ADDRESS_EXPECTED } from './addresses.js';
import type { Schedule } from './schedule.js';
import type { Api } from '../upstash/client.js';
import {
  LIMITS,
  listingOf,
  ownSchedules,
  SOURCE_NAMES,
  type LimitFileKey,
  type LimitRow,
  type OwnSchedule,
  type PerIdUnit,
  type SourceName,
} from '../vocabulary.js';
import {
  byteSize,
  count,
  credential,
  cronSchedule,
  email,
  durationLimit,
  filePath,
  interval,
  isNumeric,
  lookbackMs,
  labelList,
  MAX_TOTAL_SHARDS,
  name,
  nonEmptyText,
  regex,
  timeoutMs,
  TOO_MANY_SHARDS,
  url,
  yesNo,
} from './values.js';
import {
  DEFAULTS,
  LOG_FORMATS,
  LOG_LEVELS,
  MANAGEMENT_DEFAULT_SOURCES,
  MANAGEMENT_SOURCES,
  QSTASH_DEFAULT_SOURCES,
  QSTASH_SOURCES,
} from './types.js';

// The shape of the YAML file, keys in snake_case as users write them; env-only mode builds the same
// document. Structure and formats are checked here, and durations and schedules parsed; resolve.ts
// does what needs the outside world (secret files, paths).

/** The key of each list's credential; `<key>_file` gives it from a file instead. */
export const SECRET_KEYS = { qstash: 'token', management: 'api_key' } as const;
type SecretKey = (typeof SECRET_KEYS)[keyof typeof SECRET_KEYS];

interface Timing {
  interval?: Schedule | undefined;
  schedule?: Schedule | undefined;
}

/** Checks shared by both kinds of entry: one timing, one way to give the secret. */
function entryRules(secretKey: SecretKey) {
  return (entry: Timing & Record<string, unknown>, ctx: z.RefinementCtx): void => {
    if (entry.interval !== undefined && entry.schedule !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['schedule'],
        message: 'cannot be combined with interval; give one of them',
      });
    }
    const inline = entry[secretKey] !== undefined;
    const file = entry[`${secretKey}_file`] !== undefined;
    if (inline && file) {
      ctx.addIssue({
        code: 'custom',
        path: [secretKey],
        message: `cannot be combined with ${secretKey}_file; give one of them`,
      });
    } else if (!inline && !file) {
      ctx.addIssue({ code: 'custom', path: [secretKey], message: `is required (or ${secretKey}_file)` });
    }
  };
}

/** How a message names the IDs of each unit kind a listing discovers. */
const DISCOVERED = {
  database: 'the databases',
  qstash_instance: 'the QStash instances',
  vector_index: 'the Vector indexes',
  search_index: 'the Search indexes',
} as const satisfies Record<PerIdUnit, string>;

/** The entry's key that may give the IDs of a unit kind instead of its listing. */
const GIVEN_IDS: Partial<Record<PerIdUnit, string>> = { database: 'databases' };

/**
 * What an entry's sources need, from their rows: a source polled per ID needs the listing that
 * discovers the IDs (`listedBy`), unless the entry gives them (`databases:`); one problem per listing.
 */
function listingRules(api: Api) {
  const all = SOURCE_NAMES[api];
  const byDefault = api === 'qstash' ? QSTASH_DEFAULT_SOURCES : MANAGEMENT_DEFAULT_SOURCES;
  return (entry: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    const sources: readonly unknown[] = Array.isArray(entry.sources) ? entry.sources : byDefault;
    const reported = new Set<SourceName>();
    for (const name of all) {
      const listing = listingOf(name);
      if (listing === undefined || !sources.includes(name)) continue;
      const { per, listedBy } = listing;
      if (sources.includes(listedBy) || reported.has(listedBy)) continue;
      reported.add(listedBy);
      const key = GIVEN_IDS[per];
      if (key === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['sources'],
          message: `lists ${name} without ${listedBy}, which tells it ${DISCOVERED[per]} to poll`,
        });
      } else if (entry[key] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `is required when the ${listedBy} source is not polled (it discovers ${DISCOVERED[per]})`,
        });
      }
    }
  };
}

/** A management entry's `databases` list replaces discovery, so the discovery filters cannot join it. */
function databasesRules(entry: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (entry.databases === undefined) return;
  for (const key of ['include', 'exclude'] as const) {
    if (entry[key] !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: 'cannot be combined with databases: it filters discovered databases only',
      });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Replaces an entry's `interval` and `schedule` by the one schedule it runs on. */
const withSchedule =
  (defaultInterval: string) =>
  <E extends Timing>({ interval: every, schedule, ...entry }: E) => ({
    ...entry,
    // The defaults are valid intervals, so this parse cannot throw.
    schedule: schedule ?? every ?? interval.parse(defaultInterval),
  });

type OwnIntervalKey<A extends Api> = `${OwnSchedule<A>}_interval`;

/** The `<name>_interval` keys of an entry of `api`, one per own schedule (the rows' `schedule`). */
function ownIntervals<A extends Api>(api: A) {
  return Object.fromEntries(
    ownSchedules(api).map((name) => [`${name}_interval`, interval.optional()]),
  ) as Record<OwnIntervalKey<A>, ReturnType<typeof interval.optional>>;
}

/** Adds an entry's `ownSchedules` from its `<name>_interval` keys, each defaulted. */
const withOwnSchedules =
  <A extends Api>(api: A) =>
  <E extends Partial<Record<OwnIntervalKey<A>, Schedule | undefined>>>(entry: E) => ({
    ...entry,
    ownSchedules: Object.fromEntries(
      ownSchedules(api).map((name) => [
        name,
        // The defaults are valid intervals, so this parse cannot throw.
        entry[`${name}_interval`] ?? interval.parse(DEFAULTS.ownIntervals[name]),
      ]),
    ) as Record<OwnSchedule<A>, Schedule>,
  });

/** A list whose items are all different; `plural` names them for a value that is not a list. */
const distinct = <T extends z.ZodType>(item: T, what: string, plural: string) =>
  z.array(item, { error: `must be a list of ${plural}` }).superRefine((items, ctx) => {
    if (new Set(items).size !== items.length)
      ctx.addIssue({ code: 'custom', message: `lists ${what} twice` });
  });

/** A list of entries whose names are unique. */
const uniquelyNamed = <T extends z.ZodType<{ name: string }>>(entry: T, key: string) =>
  z
    .array(entry, { error: 'must be a list of entries, each starting with `- name:`' })
    .superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((e, index) => {
        if (seen.has(e.name)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'name'],
            message: `duplicates the name of another ${key} entry`,
          });
        }
        seen.add(e.name);
      });
    });

const qstashEntry = z
  .strictObject({
    name,
    url: url.optional(),
    token: credential.optional(),
    token_file: filePath.optional(),
    sources: distinct(z.enum(QSTASH_SOURCES), 'a source', 'sources')
      .min(1, 'must list at least one source')
      .optional(),
    interval: interval.optional(),
    schedule: cronSchedule.optional(),
    ...ownIntervals('qstash'),
    workflow_lookback: lookbackMs.optional(),
    labels: labelList.optional(),
    exemplars: yesNo.optional(),
  })
  .superRefine(entryRules(SECRET_KEYS.qstash))
  .superRefine(listingRules('qstash'), { when: (payload) => isRecord(payload.value) })
  .transform(withSchedule(DEFAULTS.qstashInterval))
  .transform(withOwnSchedules('qstash'));

const managementEntry = z
  .strictObject({
    name,
    url: url.optional(),
    email,
    api_key: credential.optional(),
    api_key_file: filePath.optional(),
    databases: distinct(nonEmptyText('must be a database ID'), 'a database ID', 'database IDs')
      .min(1, 'must list at least one database ID')
      .optional(),
    include: z.array(regex).optional(),
    exclude: z.array(regex).optional(),
    interval: interval.optional(),
    schedule: cronSchedule.optional(),
    // Backups change daily at most, the account's safety rarely: their own, slower schedules
    // (backups_interval, audit_interval), which `schedule` does not cover.
    ...ownIntervals('management'),
    sources: distinct(z.enum(MANAGEMENT_SOURCES), 'a source', 'sources')
      .min(1, 'must list at least one source')
      .optional(),
  })
  .superRefine(entryRules(SECRET_KEYS.management))
  // Run even when other keys failed, so a missing `databases` shows in the same run as they do.
  .superRefine(databasesRules, { when: (payload) => isRecord(payload.value) })
  .superRefine(listingRules('management'), { when: (payload) => isRecord(payload.value) })
  .transform(withSchedule(DEFAULTS.managementInterval))
  .transform(withOwnSchedules('management'));

/** The config file as parsed by zod, before resolution. */
export const fileSchema = z.strictObject(
  {
    listen_address: z
      .string({ error: LISTEN_ADDRESS_EXPECTED })
      .optional()
      .superRefine((text, ctx) => {
        const problem = text === undefined ? undefined : checkListenAddress(text);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }),
    log_level: z.enum(LOG_LEVELS).optional(),
    log_format: z.enum(LOG_FORMATS).optional(),
    sharding: z
      .strictObject({
        shard: z
          .union([z.literal('auto'), count(0)], {
            error: (issue) =>
              typeof issue.input === 'string' && /^[0-9]+$/.test(issue.input)
                ? 'must be a whole number without quotes, or auto'
                : 'must be a whole number or auto',
          })
          .optional(),
        total: count(1, { at: MAX_TOTAL_SHARDS, message: TOO_MANY_SHARDS }).optional(),
      })
      .optional(),
    web_config_file: filePath.optional(),
    web_enable_lifecycle: yesNo.optional(),
    metrics: z
      .strictObject({
        allow: z.array(regex).optional(),
        deny: z.array(regex).optional(),
      })
      .optional(),
    http: z
      .strictObject({
        timeout: timeoutMs.optional(),
        retries: count(0).pipe(z.number().max(10, 'must be at most 10')).optional(),
        concurrency: count(1).pipe(z.number().max(64, 'must be at most 64')).optional(),
        max_response_size: byteSize.optional(),
      })
      .optional(),
    limits: z.strictObject(limitShape()).optional(),
    qstash: uniquelyNamed(qstashEntry, 'qstash').optional(),
    management: uniquelyNamed(managementEntry, 'management').optional(),
  },
  { error: 'the configuration must be a mapping of keys to values (listen_address:, qstash:, …)' },
);

/**
 * The `limits` mapping's keys, each a whole number (or a duration) within its bounds, from the one
 * table (LIMITS).
 */
function limitShape(): Record<LimitFileKey, z.ZodOptional<z.ZodType<number>>> {
  const bounded = (limit: LimitRow): z.ZodType<number> =>
    limit.duration
      ? durationLimit(limit.min, limit.max)
      : count(
          limit.min,
          limit.max === undefined ? undefined : { at: limit.max, message: `must be at most ${limit.max}` },
        );
  return Object.fromEntries(
    Object.values(LIMITS).map((limit) => [limit.file, bounded(limit).optional()]),
  ) as Record<LimitFileKey, z.ZodOptional<z.ZodType<number>>>;
}

export type FileConfig = z.output<typeof fileSchema>;
export type QstashInput = z.input<typeof qstashEntry>;
export type ManagementInput = z.input<typeof managementEntry>;
export type QstashEntry = z.output<typeof qstashEntry>;
export type ManagementEntry = z.output<typeof managementEntry>;

/**
 * The dotted paths (`http.retries`) of the keys that take a number, found in `schema`: `${VAR}`
 * expansion turns a number it puts there into one. Lists are not entered (no number is in one).
 */
export function numberKeys(
  schema: z.ZodType = fileSchema,
  path = '',
  found = new Set<string>(),
): Set<string> {
  if (isNumeric(schema)) found.add(path);
  else if (schema instanceof z.ZodOptional) numberKeys(schema.unwrap() as z.ZodType, path, found);
  else if (schema instanceof z.ZodPipe) numberKeys(schema.in as z.ZodType, path, found);
  else if (schema instanceof z.ZodUnion) {
    for (const option of schema.options as readonly z.ZodType[]) numberKeys(option, path, found);
  } else if (schema instanceof z.ZodObject) {
    const shape: Readonly<Record<string, z.ZodType>> = schema.shape;
    for (const [key, value] of Object.entries(shape))
      numberKeys(value, path === '' ? key : `${path}.${key}`, found);
  }
  return found;
}
