import { z } from 'zod';
import { regexProblem } from '../metrics/relabel-regex.js';
import { BASE_URL_EXPECTED, checkBaseUrl, checkListenAddress, LISTEN_ADDRESS_EXPECTED } from './addresses.js';
import {
  CRON_EXPECTED,
  INTERVAL_EXPECTED,
  parseDuration,
  scheduleFromCron,
  scheduleFromInterval,
  type Schedule,
} from './schedule.js';
import { secretProblem } from './secret.js';
import type { Api } from '../upstash/client.js';
import { ownSchedules, type OwnSchedule } from '../vocabulary.js';
import { nearest } from './suggest.js';
import { DEFAULTS, LOG_FORMATS, LOG_LEVELS, MANAGEMENT_SOURCES, QSTASH_SOURCES } from './types.js';

// The shape of the YAML file, keys in snake_case as users write them; env-only mode builds the same
// document. Structure and formats are checked here, and durations and schedules parsed; resolve.ts
// does what needs the outside world (secret files, paths).

/**
 * The schemas that take a number: `${VAR}` expanded into a key holding one of them is read as a
 * number, as YAML reads one written there ({@link numberKeys}). Written in quotes, it is text.
 */
const numeric = new WeakSet<z.ZodType>();

/**
 * The most processes a configuration can be sharded across: units are shared out by a 32-bit hash
 * (contract section 7), so beyond 2^32 shards some could never own one. Also a safe integer.
 */
export const MAX_TOTAL_SHARDS = 2 ** 32;
/** Why a larger total is refused, for the flag and the file alike. */
export const TOO_MANY_SHARDS = `must be at most ${MAX_TOTAL_SHARDS} (the shard hash has 32 bits)`;

/** A whole number, unquoted: `retries: "2"` is text where a number belongs, and said so. */
const count = (min: number, max?: { readonly at: number; readonly message: string }) => {
  const number = z.number({
    error: (issue) =>
      typeof issue.input === 'string' && /^[0-9.+-]+$/.test(issue.input)
        ? 'must be a whole number, without quotes'
        : 'must be a whole number',
  });
  // Above `max` it is refused with `max`'s own message, checked first: past 2^53 a number is no
  // longer whole to zod.
  const schema = (max === undefined ? number : number.max(max.at, { message: max.message, abort: true }))
    .int('must be a whole number')
    .min(min, `must be at least ${min}`);
  numeric.add(schema);
  return schema;
};

/** true or false, also as text, since `${VAR}` expansion always yields text. */
const yesNo = z.union(
  [z.boolean(), z.enum(['true', 'false']).transform((text) => text === 'true')],
  'must be true or false',
);

const NAME_EXPECTED = 'must be letters, digits, `_`, `.` or `-`, starting with a letter or digit';
const name = z
  .string({ error: NAME_EXPECTED })
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, NAME_EXPECTED)
  .max(64, 'must be at most 64 characters');

const url = z.string({ error: BASE_URL_EXPECTED }).superRefine((text, ctx) => {
  const problem = checkBaseUrl(text);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * Text that must not be empty; a value that is not text says `expected` alone. (`.min(1)` would also
 * measure a list given instead, and say it is empty too.)
 */
const nonEmptyText = (expected: string) =>
  z.string({ error: expected }).refine((text) => text.length > 0, 'must not be empty');

const filePath = nonEmptyText('must be a file path');

const credential = nonEmptyText(
  'must be the secret itself, as text (in quotes if it looks like a number)',
).superRefine((value, ctx) => {
  const problem = secretProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * A string parsed into its value, once, here. A failed parse is a continuable issue, as a refinement's
 * would be, so that the checks after it (duplicate names, one timing per entry) still run and every
 * problem shows in one run.
 */
const parsedText = <T extends object | number>(
  expected: string,
  parse: (text: string) => T | { error: string },
) =>
  z.string({ error: expected }).transform((text, ctx): T => {
    const result = parse(text);
    if (typeof result === 'object' && 'error' in result) {
      ctx.addIssue({ code: 'custom', message: result.error, continue: true });
      return z.NEVER;
    }
    return result;
  });

const interval = parsedText<Schedule>(INTERVAL_EXPECTED, scheduleFromInterval);
const cronSchedule = parsedText<Schedule>(CRON_EXPECTED, scheduleFromCron);
// Node's timers cannot wait longer than 2^31-1 ms: a longer timeout fires at once, failing every
// request after 1 ms. An hour is more than any Upstash call should take.
const MAX_TIMEOUT_MS = 3_600_000;
const TIMEOUT_EXPECTED = 'must be a duration like 10s';
const timeoutMs = parsedText(TIMEOUT_EXPECTED, (text) => {
  const ms = parseDuration(text);
  if (ms === undefined) return { error: TIMEOUT_EXPECTED };
  return ms > MAX_TIMEOUT_MS ? { error: 'must be at most 1h' } : ms;
});

const SIZE_UNITS = { '': 1, KiB: 1024, MiB: 1024 * 1024 } as const;
/**
 * Above this, one body of the smallest entries takes seconds of main-thread JSON work (blocking
 * /metrics past 2 s) and hundreds of MB (test/load/large-body.test.ts measures it).
 */
const MAX_RESPONSE_SIZE = 16 * 1024 * 1024;
/** A byte count: a whole number (unquoted, as every number), or text with KiB or MiB (`8MiB`). */
const byteSize = z.unknown().transform((value, ctx): number => {
  const match =
    typeof value === 'number'
      ? /^([1-9][0-9]*)()$/.exec(String(value))
      : typeof value === 'string'
        ? /^([1-9][0-9]*)(KiB|MiB)$/.exec(value)
        : null;
  const bytes =
    match === null ? NaN : Number(match[1]) * SIZE_UNITS[(match[2] ?? '') as keyof typeof SIZE_UNITS];
  if (!Number.isSafeInteger(bytes)) {
    const quoted = typeof value === 'string' && /^[0-9]+$/.test(value);
    ctx.addIssue({
      code: 'custom',
      message: quoted
        ? 'must be a number of bytes without quotes, or a size with KiB or MiB, like 8MiB'
        : 'must be a size in bytes, or with KiB or MiB, like 8MiB',
    });
    return z.NEVER;
  }
  if (bytes < 1024 || bytes > MAX_RESPONSE_SIZE) {
    ctx.addIssue({ code: 'custom', message: 'must be from 1KiB to 16MiB' });
    return z.NEVER;
  }
  return bytes;
});
numeric.add(byteSize);

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

/** What the management sources need: stats of databases need their IDs, QStash stats their listing. */
function managementSourceRules(entry: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const sources: readonly unknown[] = Array.isArray(entry.sources) ? entry.sources : MANAGEMENT_SOURCES;
  if (entry.databases !== undefined) {
    for (const key of ['include', 'exclude'] as const) {
      if (entry[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'cannot be combined with databases: it filters discovered databases only',
        });
    }
  } else if (
    (sources.includes('redis_stats') || sources.includes('redis_backups')) &&
    !sources.includes('databases')
  ) {
    ctx.addIssue({
      code: 'custom',
      path: ['databases'],
      message: 'is required when the databases source is not polled (it discovers the databases)',
    });
  }
  for (const [stats, listing, what] of [
    ['qstash_stats', 'qstash_users', 'the QStash instances'],
    ['vector_stats', 'vector_indexes', 'the Vector indexes'],
    ['search_stats', 'search_indexes', 'the Search indexes'],
  ] as const) {
    if (sources.includes(stats) && !sources.includes(listing)) {
      ctx.addIssue({
        code: 'custom',
        path: ['sources'],
        message: `lists ${stats} without ${listing}, which tells it ${what} to poll`,
      });
    }
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

/** The `<name>_interval` keys of an entry of `api`, one per own schedule (OWN_SCHEDULES). */
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
  })
  .superRefine(entryRules(SECRET_KEYS.qstash))
  .transform(withSchedule(DEFAULTS.qstashInterval))
  .transform(withOwnSchedules('qstash'));

/**
 * A regular expression in RE2 syntax (matched against a whole name later). The message says why it
 * is refused but not what it is: the path names it, and values are never echoed.
 */
const regex = z.string().superRefine((pattern, ctx) => {
  const problem = regexProblem(pattern);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const managementEntry = z
  .strictObject({
    name,
    url: url.optional(),
    email: nonEmptyText('must be the e-mail address of the account'),
    api_key: credential.optional(),
    api_key_file: filePath.optional(),
    databases: distinct(nonEmptyText('must be a database ID'), 'a database ID', 'database IDs')
      .min(1, 'must list at least one database ID')
      .optional(),
    include: z.array(regex).optional(),
    exclude: z.array(regex).optional(),
    interval: interval.optional(),
    schedule: cronSchedule.optional(),
    // Backups change daily at most: their own, slower schedule, which `schedule` does not cover.
    ...ownIntervals('management'),
    sources: distinct(z.enum(MANAGEMENT_SOURCES), 'a source', 'sources')
      .min(1, 'must list at least one source')
      .optional(),
  })
  .superRefine(entryRules(SECRET_KEYS.management))
  // Run even when other keys failed, so a missing `databases` shows in the same run as they do.
  .superRefine(managementSourceRules, { when: (payload) => isRecord(payload.value) })
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
    limits: z
      .strictObject({
        max_flow_control_keys: count(1).optional(),
        max_url_groups: count(1).optional(),
        max_commands_per_database: count(1).optional(),
        max_queues: count(1).optional(),
        max_schedules: count(1).optional(),
        max_indexes: count(1).optional(),
        max_dlq_pages: count(1).pipe(z.number().max(100, 'must be at most 100')).optional(),
      })
      .optional(),
    qstash: uniquelyNamed(qstashEntry, 'qstash').optional(),
    management: uniquelyNamed(managementEntry, 'management').optional(),
  },
  { error: 'the configuration must be a mapping of keys to values (listen_address:, qstash:, …)' },
);

export type FileConfig = z.output<typeof fileSchema>;
export type QstashInput = z.input<typeof qstashEntry>;
export type ManagementInput = z.input<typeof managementEntry>;
export type QstashEntry = z.output<typeof qstashEntry>;
export type ManagementEntry = z.output<typeof managementEntry>;

/** Renders a zod issue path as users write it: `qstash[0].token`. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** What a value of each zod type is, in the words of a YAML file. */
const EXPECTED_TYPES: Readonly<Record<string, string>> = {
  string: 'must be text',
  number: 'must be a number',
  int: 'must be a whole number',
  boolean: 'must be true or false',
  array: 'must be a list',
  object: 'must be a mapping of keys to values',
};

/**
 * The error map to parse with: a value of the wrong type says what was expected in the file's words
 * where its schema has no message of its own (never "must be a string", never the value itself).
 */
export const expectedType: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' ? (EXPECTED_TYPES[issue.expected] ?? `must be ${issue.expected}`) : undefined;

/**
 * The dotted paths (`http.retries`) of the keys that take a number, found in `schema`: `${VAR}`
 * expansion turns a number it puts there into one. Lists are not entered (no number is in one).
 */
export function numberKeys(
  schema: z.ZodType = fileSchema,
  path = '',
  found = new Set<string>(),
): Set<string> {
  if (numeric.has(schema)) found.add(path);
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

/** The keys an object schema at `path` within `schema` knows; empty when there is none there. */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  if (schema instanceof z.ZodOptional) return knownKeys(schema.unwrap() as z.ZodType, path);
  if (schema instanceof z.ZodPipe) return knownKeys(schema.in as z.ZodType, path);
  const [first, ...rest] = path;
  if (first === undefined) return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  if (schema instanceof z.ZodArray && typeof first === 'number')
    return knownKeys(schema.element as z.ZodType, rest);
  if (schema instanceof z.ZodObject && typeof first === 'string') {
    const next = (schema.shape as Record<string, z.ZodType | undefined>)[first];
    return next === undefined ? [] : knownKeys(next, rest);
  }
  return [];
}

/**
 * Turns zod issues into problems. Messages never quote the offending value: it may be a secret
 * typed into the wrong key. Given the schema, an unknown key is told the known key nearest to it.
 */
export function zodProblems(error: z.ZodError, schema?: z.ZodType): { path: string; message: string }[] {
  return error.issues.flatMap((issue) => {
    const path = issuePath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const known = schema === undefined ? [] : knownKeys(schema, issue.path);
      return issue.keys.map((key) => {
        const suggestion = nearest(key, known);
        return {
          path: path === '' ? key : `${path}.${key}`,
          message: `is not a known key${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`,
        };
      });
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) return [{ path, message: 'is required' }];
    if (issue.code === 'invalid_value') {
      return [{ path, message: `must be one of ${issue.values.map((v) => String(v)).join(', ')}` }];
    }
    return [{ path, message: issue.message }];
  });
}
