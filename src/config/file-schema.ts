import { z } from 'zod';
import { regexProblem } from '../metrics/relabel-regex.js';
import { checkBaseUrl, checkListenAddress } from './addresses.js';
import { parseDuration, scheduleFromCron, scheduleFromInterval, type Schedule } from './schedule.js';
import { secretProblem } from './secret.js';
import type { Api } from '../upstash/client.js';
import { ownSchedules, type OwnSchedule } from '../vocabulary.js';
import { DEFAULTS, LOG_FORMATS, LOG_LEVELS, MANAGEMENT_SOURCES, QSTASH_SOURCES } from './types.js';

// The shape of the YAML file, keys in snake_case as users write them; env-only mode builds the same
// document. Structure and formats are checked here, and durations and schedules parsed; resolve.ts
// does what needs the outside world (secret files, paths).

/**
 * A whole number, also as text, since `${VAR}` expansion always yields text. Above `max` (checked
 * first: past 2^53 a number is no longer whole to zod) it is refused with `max`'s own message.
 */
const count = (min: number, max?: { readonly at: number; readonly message: string }) =>
  z
    // Without a message of its own, a union that fails both ways only says "Invalid input".
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^[0-9]+$/, 'must be a whole number')
          .transform(Number),
      ],
      'must be a whole number',
    )
    .pipe(
      (max === undefined ? z.number() : z.number().max(max.at, { message: max.message, abort: true }))
        .int('must be a whole number')
        .min(min, `must be at least ${min}`),
    );

/**
 * The most processes a configuration can be sharded across: units are shared out by a 32-bit hash
 * (contract section 7), so beyond 2^32 shards some could never own one. Also a safe integer.
 */
export const MAX_TOTAL_SHARDS = 2 ** 32;
/** Why a larger total is refused, for the flag and the file alike. */
export const TOO_MANY_SHARDS = `must be at most ${MAX_TOTAL_SHARDS} (the shard hash has 32 bits)`;

const name = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
    'must be letters, digits, `_`, `.` or `-`, starting with a letter or digit',
  )
  .max(64, 'must be at most 64 characters');

const url = z.string().superRefine((text, ctx) => {
  const problem = checkBaseUrl(text);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const credential = z
  .string()
  .min(1, 'must not be empty')
  .superRefine((value, ctx) => {
    const problem = secretProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * A string parsed into its value, once, here. A failed parse is a continuable issue, as a refinement's
 * would be, so that the checks after it (duplicate names, one timing per entry) still run and every
 * problem shows in one run.
 */
const parsedText = <T extends object | number>(parse: (text: string) => T | { error: string }) =>
  z.string().transform((text, ctx): T => {
    const result = parse(text);
    if (typeof result === 'object' && 'error' in result) {
      ctx.addIssue({ code: 'custom', message: result.error, continue: true });
      return z.NEVER;
    }
    return result;
  });

const interval = parsedText<Schedule>(scheduleFromInterval);
const cronSchedule = parsedText<Schedule>(scheduleFromCron);
// Node's timers cannot wait longer than 2^31-1 ms: a longer timeout fires at once, failing every
// request after 1 ms. An hour is more than any Upstash call should take.
const MAX_TIMEOUT_MS = 3_600_000;
const timeoutMs = parsedText((text) => {
  const ms = parseDuration(text);
  if (ms === undefined) return { error: 'must be a duration like 10s' };
  return ms > MAX_TIMEOUT_MS ? { error: 'must be at most 1h' } : ms;
});

const SIZE_UNITS = { '': 1, KiB: 1024, MiB: 1024 * 1024 } as const;
/**
 * Above this, one body of the smallest entries takes seconds of main-thread JSON work (blocking
 * /metrics past 2 s) and hundreds of MB (test/load/large-body.test.ts measures it).
 */
const MAX_RESPONSE_SIZE = 16 * 1024 * 1024;
/** A byte count: a whole number, or one with KiB or MiB (`8MiB`). */
const byteSize = z.union([z.number(), z.string()]).transform((value, ctx): number => {
  const match = /^([1-9][0-9]*)(KiB|MiB)?$/.exec(String(value));
  const bytes =
    match === null ? NaN : Number(match[1]) * SIZE_UNITS[(match[2] ?? '') as keyof typeof SIZE_UNITS];
  if (!Number.isSafeInteger(bytes)) {
    ctx.addIssue({ code: 'custom', message: 'must be a size in bytes, or with KiB or MiB, like 8MiB' });
    return z.NEVER;
  }
  if (bytes < 1024 || bytes > MAX_RESPONSE_SIZE) {
    ctx.addIssue({ code: 'custom', message: 'must be from 1KiB to 16MiB' });
    return z.NEVER;
  }
  return bytes;
});

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
        entry[`${name}_interval`] ?? interval.parse(DEFAULTS.ownIntervals[name as OwnSchedule]),
      ]),
    ) as Record<OwnSchedule<A>, Schedule>,
  });

/** A list whose items are all different. */
const distinct = <T extends z.ZodType>(item: T, what: string) =>
  z.array(item).superRefine((items, ctx) => {
    if (new Set(items).size !== items.length)
      ctx.addIssue({ code: 'custom', message: `lists ${what} twice` });
  });

/** A list of entries whose names are unique. */
const uniquelyNamed = <T extends z.ZodType<{ name: string }>>(entry: T, key: string) =>
  z.array(entry).superRefine((entries, ctx) => {
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
    token_file: z.string().min(1, 'must not be empty').optional(),
    sources: distinct(z.enum(QSTASH_SOURCES), 'a source').min(1, 'must list at least one source').optional(),
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
  if (problem !== undefined)
    ctx.addIssue({ code: 'custom', message: `is not a valid regular expression (RE2 syntax): ${problem}` });
});

const managementEntry = z
  .strictObject({
    name,
    url: url.optional(),
    email: z.string().min(1, 'must not be empty'),
    api_key: credential.optional(),
    api_key_file: z.string().min(1, 'must not be empty').optional(),
    databases: distinct(z.string().min(1, 'must not be empty'), 'a database ID')
      .min(1, 'must list at least one database ID')
      .optional(),
    include: z.array(regex).optional(),
    exclude: z.array(regex).optional(),
    interval: interval.optional(),
    schedule: cronSchedule.optional(),
    // Backups change daily at most: their own, slower schedule, which `schedule` does not cover.
    ...ownIntervals('management'),
    sources: distinct(z.enum(MANAGEMENT_SOURCES), 'a source')
      .min(1, 'must list at least one source')
      .optional(),
  })
  .superRefine(entryRules(SECRET_KEYS.management))
  // Run even when other keys failed, so a missing `databases` shows in the same run as they do.
  .superRefine(managementSourceRules, { when: (payload) => isRecord(payload.value) })
  .transform(withSchedule(DEFAULTS.managementInterval))
  .transform(withOwnSchedules('management'));

/** The config file as parsed by zod, before resolution. */
export const fileSchema = z.strictObject({
  listen_address: z
    .string()
    .optional()
    .superRefine((text, ctx) => {
      const problem = text === undefined ? undefined : checkListenAddress(text);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  log_level: z.enum(LOG_LEVELS).optional(),
  log_format: z.enum(LOG_FORMATS).optional(),
  sharding: z
    .strictObject({
      shard: z.union([z.literal('auto'), count(0)], 'must be a whole number or auto').optional(),
      total: count(1, { at: MAX_TOTAL_SHARDS, message: TOO_MANY_SHARDS }).optional(),
    })
    .optional(),
  web_config_file: z.string().min(1).optional(),
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
    })
    .optional(),
  qstash: uniquelyNamed(qstashEntry, 'qstash').optional(),
  management: uniquelyNamed(managementEntry, 'management').optional(),
});

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

/**
 * Turns zod issues into problems. Messages never quote the offending value: it may be a secret
 * typed into the wrong key.
 */
export function zodProblems(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.flatMap((issue) => {
    const path = issuePath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: path === '' ? key : `${path}.${key}`,
        message: 'is not a known key',
      }));
    }
    // `.int()` fails as invalid_type too, but carries its own message ("must be a whole number").
    if (issue.code === 'invalid_type' && issue.expected !== 'int') {
      return [
        { path, message: issue.input === undefined ? 'is required' : `must be ${article(issue.expected)}` },
      ];
    }
    if (issue.code === 'invalid_value') {
      return [{ path, message: `must be one of ${issue.values.map((v) => String(v)).join(', ')}` }];
    }
    return [{ path, message: issue.message }];
  });
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
