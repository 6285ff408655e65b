import { z } from 'zod';
import { regexProblem } from '../metrics/relabel-regex.js';
import { BASE_URL_EXPECTED, checkBaseUrl } from './addresses.js';
import {
  CRON_EXPECTED,
  INTERVAL_EXPECTED,
  parseDuration,
  scheduleFromCron,
  scheduleFromInterval,
  type Schedule,
} from './schedule.js';
import { secretProblem } from './secret.js';
import { DEFAULTS } from './types.js';

// The values of the config file, each schema saying in the file's words what it expects when a
// value is not one (never "must be a string", never the value itself). file-schema.ts puts them
// together.

/**
 * The schemas that take a number: `${VAR}` expanded into a key holding one of them is read as a
 * number, as YAML reads one written there ({@link numberKeys}). Written in quotes, it is text.
 */
const numeric = new WeakSet<z.ZodType>();

/** Whether `schema` takes a number (see {@link numeric}). */
export function isNumeric(schema: z.ZodType): boolean {
  return numeric.has(schema);
}

/**
 * The most processes a configuration can be sharded across: units are shared out by a 32-bit hash
 * (docs/sharding.md, How units are shared out), so beyond 2^32 shards some could never own one. Also a safe
 * integer.
 */
export const MAX_TOTAL_SHARDS = 2 ** 32;
/** Why a larger total is refused, for the flag and the file alike. */
export const TOO_MANY_SHARDS = `must be at most ${MAX_TOTAL_SHARDS} (the shard hash has 32 bits)`;

/** A whole number, unquoted: `retries: "2"` is text where a number belongs, and said so. */
export const count = (min: number, max?: { readonly at: number; readonly message: string }) => {
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
export const yesNo = z.union(
  [z.boolean(), z.enum(['true', 'false']).transform((text) => text === 'true')],
  'must be true or false',
);

const NAME_EXPECTED = 'must be letters, digits, `_`, `.` or `-`, starting with a letter or digit';
export const name = z
  .string({ error: NAME_EXPECTED })
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, NAME_EXPECTED)
  .max(64, 'must be at most 64 characters');

export const url = z.string({ error: BASE_URL_EXPECTED }).superRefine((text, ctx) => {
  const problem = checkBaseUrl(text);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * Text that must not be empty; a value that is not text says `expected` alone. (`.min(1)` would also
 * measure a list given instead, and say it is empty too.)
 */
export const nonEmptyText = (expected: string) =>
  z.string({ error: expected }).refine((text) => text.length > 0, 'must not be empty');

export const filePath = nonEmptyText('must be a file path');

const EMAIL_EXPECTED = 'must be the e-mail address of the account that created the API key';
/**
 * The management API's e-mail: one `@` between two non-empty parts, no whitespace or control
 * characters, at most 254 characters (RFC 5321's path limit). A token pasted in its place has no `@` and
 * fails here, never to be printed: the message does not quote the value, and the summary shows none.
 */
export const email = nonEmptyText(EMAIL_EXPECTED).superRefine((text, ctx) => {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  const shaped = /^[^\s\x00-\x1f\x7f@]+@[^\s\x00-\x1f\x7f@]+$/.test(text);
  if (text.length > 0 && (!shaped || text.length > 254))
    ctx.addIssue({ code: 'custom', message: `${EMAIL_EXPECTED} (name@domain); the value is not shown` });
});

export const credential = nonEmptyText(
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

export const interval = parsedText<Schedule>(INTERVAL_EXPECTED, scheduleFromInterval);
export const cronSchedule = parsedText<Schedule>(CRON_EXPECTED, scheduleFromCron);
// Node's timers cannot wait longer than 2^31-1 ms: a longer timeout fires at once, failing every
// request after 1 ms. An hour is more than any Upstash call should take.
const MAX_TIMEOUT_MS = 3_600_000;
const TIMEOUT_EXPECTED = 'must be a duration like 10s';
export const timeoutMs = parsedText(TIMEOUT_EXPECTED, (text) => {
  const ms = parseDuration(text);
  if (ms === undefined) return { error: TIMEOUT_EXPECTED };
  return ms > MAX_TIMEOUT_MS ? { error: 'must be at most 1h' } : ms;
});

const { minMs: MIN_LOOKBACK_MS, maxMs: MAX_LOOKBACK_MS } = DEFAULTS.workflowLookback;
const LOOKBACK_EXPECTED = 'must be a duration like 30m, 1h or 7d';
/** `workflow_lookback`: a duration from 1m to 7d; days are allowed here (`7d`). */
export const lookbackMs = parsedText(LOOKBACK_EXPECTED, (text) => {
  const days = /^([1-9][0-9]*)d$/.exec(text);
  const ms = days === null ? parseDuration(text) : Number(days[1]) * 86_400_000;
  if (ms === undefined) return { error: LOOKBACK_EXPECTED };
  return ms < MIN_LOOKBACK_MS || ms > MAX_LOOKBACK_MS ? { error: 'must be from 1m to 7d' } : ms;
});

/** The most label values a qstash entry's `labels:` lists, and the characters of each. */
export const LABEL_LIST = { maxValues: 20, maxChars: 64 } as const;
// Control characters (C0, DEL, C1): a label value is written into series and pages as it is.
const CONTROL = /\p{Cc}/u;
/**
 * `labels:`: the Upstash label values to count by (docs/configuration.md, Your own labels). The
 * messages never quote a value: the path names it.
 */
export const labelList = z
  .array(
    z.string({ error: 'must be a label value (text)' }).superRefine((value, ctx) => {
      const chars = Array.from(value).length;
      if (chars < 1 || chars > LABEL_LIST.maxChars)
        ctx.addIssue({ code: 'custom', message: `must be 1 to ${LABEL_LIST.maxChars} characters` });
      if (value.includes(','))
        ctx.addIssue({ code: 'custom', message: 'must not hold a comma (Upstash splits labels at commas)' });
      if (CONTROL.test(value)) ctx.addIssue({ code: 'custom', message: 'must not hold a control character' });
    }),
    { error: 'must be a list of label values' },
  )
  .max(LABEL_LIST.maxValues, `must list at most ${LABEL_LIST.maxValues} label values`)
  .superRefine((values, ctx) => {
    const seen = new Set<string>();
    values.forEach((value, index) => {
      if (seen.has(value))
        ctx.addIssue({ code: 'custom', path: [index], message: 'lists a label value twice' });
      seen.add(value);
    });
  });

/** A duration as the file writes it: the largest whole unit (`30s`, `5m`, `1h`; `0s`). */
export function durationText(ms: number): string {
  if (ms > 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms > 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}

/** A duration limit (`limits.event_settle`): `0s` or {@link parseDuration}'s, within its bounds (ms). */
export const durationLimit = (min: number, max: number | undefined) => {
  const expected = 'must be a duration like 0s, 30s or 5m';
  const bounds = `must be from ${durationText(min)} to ${max === undefined ? 'any' : durationText(max)}`;
  return parsedText(expected, (text) => {
    const ms = text === '0s' ? 0 : parseDuration(text);
    if (ms === undefined) return { error: expected };
    return ms < min || (max !== undefined && ms > max) ? { error: bounds } : ms;
  });
};

const SIZE_UNITS = { '': 1, KiB: 1024, MiB: 1024 * 1024 } as const;
/**
 * Above this, one body of the smallest entries takes seconds of main-thread JSON work (blocking
 * /metrics past 2 s) and hundreds of MB (test/load/large-body.test.ts measures it).
 */
const MAX_RESPONSE_SIZE = 16 * 1024 * 1024;
/** A byte count: a whole number (unquoted, as every number), or text with KiB or MiB (`8MiB`). */
export const byteSize = z.unknown().transform((value, ctx): number => {
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

/**
 * A regular expression in RE2 syntax (matched against a whole name later). The message says why it
 * is refused but not what it is: the path names it, and values are never echoed.
 */
export const regex = z.string().superRefine((pattern, ctx) => {
  const problem = regexProblem(pattern);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});
