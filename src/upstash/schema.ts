import { setImmediate } from 'node:timers/promises';
import type { z } from 'zod';
import { InvalidResponseError } from './errors.js';
import { tolerated, type Tolerated } from './tolerance.js';

/** A short, value-free description of why a body failed its schema: where, and what was expected. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'wrong shape';
  // A union reports one issue; dig into the branch that got deepest into the body for a precise path
  // (a bare array fails the object branch at the top, but the array branch at the bad entry's field).
  const inner =
    issue.code === 'invalid_union'
      ? issue.errors
          .flat()
          .reduce<z.core.$ZodIssue | undefined>(
            (best, candidate) =>
              best === undefined || candidate.path.length > best.path.length ? candidate : best,
            undefined,
          )
      : undefined;
  const chosen = inner ?? issue;
  const path = `${prefix}${chosen.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;
  const more = error.issues.length > 1 ? ` and ${error.issues.length - 1} more` : '';
  return `wrong shape at ${path === '' ? 'top level' : path.replace(/^\./, '')}: ${chosen.message}${more}`;
}

/**
 * Validates a list body entry by entry and stops at the first bad one: a huge body of bad entries
 * then costs one problem, not one per entry, and a changed API still fails loudly. `at` names the
 * list in the message (`flowControls`, or '' for a bare array).
 */
export function parseEntries<T extends z.ZodType>(
  list: readonly unknown[],
  entry: T,
  at: string,
  fail: (problem: string) => Error,
  from = 0,
  to = list.length,
): z.output<T>[] {
  const out: z.output<T>[] = [];
  for (let index = from; index < to; index++) {
    const parsed = entry.safeParse(list[index]);
    if (!parsed.success) throw fail(describeIssues(parsed.error, `${at}[${index}]`));
    out.push(parsed.data);
  }
  return out;
}

/** Entries validated between two turns of the event loop. */
const SLICE = 10_000;

/**
 * {@link parseEntries} for a body as it arrives: in slices, giving the event loop a turn between
 * them, so that scrapes are answered while a large list is validated (hundreds of thousands of
 * entries take most of a second).
 */
export async function parseEntriesInSlices<T extends z.ZodType>(
  list: readonly unknown[],
  entry: T,
  at: string,
  fail: (problem: string) => Error,
): Promise<z.output<T>[]> {
  return inSlices(list.length, (from, to) => parseEntries(list, entry, at, fail, from, to));
}

/** `run` over `[0, length)` in slices of {@link SLICE}, the event loop given a turn between them. */
async function inSlices<T>(length: number, run: (from: number, to: number) => T[]): Promise<T[]> {
  if (length <= SLICE) return run(0, length);
  const out: T[] = [];
  for (let from = 0; from < length; from += SLICE) {
    await setImmediate();
    for (const item of run(from, Math.min(from + SLICE, length))) out.push(item);
  }
  return out;
}

/**
 * Fails when two entries of a list share their key: one name, two values would make Prometheus
 * keep either, silently. Upstash keys are unique, so a repeat means the API changed: loud.
 */
export function assertUnique<T>(
  items: readonly T[],
  key: (item: T) => string,
  field: string,
  fail: (problem: string) => Error,
): void {
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const value = key(item);
    if (seen.has(value)) throw fail(`entry [${index}] repeats the ${field} of an earlier entry`);
    seen.add(value);
  }
}

/** What a response problem of `url` throws: an `invalid_response` naming the request. */
export function responseFailure(url: string): (problem: string) => Error {
  return (problem) => new InvalidResponseError('GET', url, problem);
}

/** A body that must be a bare JSON array of entries. */
export function arrayBody(json: unknown, fail: (problem: string) => Error): unknown[] {
  if (!Array.isArray(json)) throw fail('wrong shape at top level: expected an array');
  return json;
}

/** A listing as parsed: its entries, and the optional fields rejected alone in any of them. */
export interface Listing<T> {
  readonly entries: T[];
  /** Optional fields skipped alone for their wrong type, in any entry (Upstash's names). */
  readonly rejected: readonly string[];
}

/** The names of an entry's fields whose value is a string. */
type StringField<E> = { [K in keyof E]: E[K] extends string ? K : never }[keyof E] & string;

/** How the body of one listing is read. */
export interface ListingShape<S extends z.ZodType<object>, T> {
  /** One entry: its key field strict, the others read by `optional` (tolerance.ts). */
  readonly entry: S;
  /**
   * The key field, a string field of the entry: its value is unique, or the listing is invalid (the
   * message names the field). A list whose entries are only counted, never named (a DLQ page's
   * messages), has none.
   */
  readonly keyField?: StringField<z.output<S>>;
  /** The entry as the exporter keeps it, its rejected optional fields absent. */
  readonly toEntry: (entry: Tolerated<z.output<S>>) => T;
  /** Where the entries are in the body, and their path for messages; a bare array when not given. */
  readonly list?: (json: unknown, fail: (problem: string) => Error) => { list: unknown[]; at: string };
  /**
   * The same entry read by hand ({@link EntryReader}), for lists read by the thousand; `entry` and
   * `toEntry` stay the rule of record and say why an entry is refused. Not with `keyField`.
   */
  readonly read?: EntryReader<T> | undefined;
}

/**
 * One entry read without zod, for the event pages: a poll may read 10,000 events, and zod's result
 * objects, the copy `tolerated` makes and `new URL` per event cost several times `JSON.parse` of the
 * page (BENCHMARKS.md, "The event window, read by hand"). It must answer exactly what the listing's
 * `toEntry(tolerated(entry))` would, adding the same names to `rejected` (tolerance.ts's field readers), and
 * undefined for an entry the schema would refuse: the schema then runs on that one entry and says why, in the
 * words every other body uses. So a reader can be stricter than its schema (it costs speed, never a verdict),
 * never looser, and a property test holds each reader to its schema on generated entries.
 */
export type EntryReader<T> = (raw: unknown, rejected: Set<string>) => T | undefined;

/**
 * Parses a listing body of `url`, in slices ({@link parseEntriesInSlices}): a bad key field, or a
 * repeated key, fails the whole listing as `invalid_response`; a bad optional field is left out of
 * its entry alone and named in `rejected`.
 */
export async function parseListing<S extends z.ZodType<object>, T>(
  json: unknown,
  url: string,
  shape: ListingShape<S, T>,
): Promise<Listing<T>> {
  const fail = responseFailure(url);
  const { list, at } = shape.list?.(json, fail) ?? { list: arrayBody(json, fail), at: '' };
  if (shape.read !== undefined && shape.keyField === undefined) {
    const rejected = new Set<string>();
    const { read } = shape;
    const entries = await inSlices(list.length, (from, to) => {
      const out: T[] = [];
      for (let index = from; index < to; index++) {
        const raw = list[index];
        out.push(read(raw, rejected) ?? schemaEntry(raw, shape, `${at}[${index}]`, fail, rejected));
      }
      return out;
    });
    return { entries, rejected: [...rejected] };
  }
  const parsed = await parseEntriesInSlices(list, shape.entry, at, fail);
  const { keyField } = shape;
  // A string (StringField says so; TypeScript cannot follow it through the generic entry type).
  if (keyField !== undefined) assertUnique(parsed, (entry) => entry[keyField] as string, keyField, fail);
  const rejected = new Set<string>();
  const entries = parsed.map((entry) => shape.toEntry(tolerated(entry, rejected)));
  return { entries, rejected: [...rejected] };
}

/**
 * An entry its reader refused, read by the schema: it fails with the schema's words (or, were the
 * schema to take it, is kept as the schema reads it).
 */
function schemaEntry<S extends z.ZodType<object>, T>(
  raw: unknown,
  shape: ListingShape<S, T>,
  at: string,
  fail: (problem: string) => Error,
  rejected: Set<string>,
): T {
  const parsed = shape.entry.safeParse(raw);
  if (!parsed.success) throw fail(describeIssues(parsed.error, at));
  return shape.toEntry(tolerated(parsed.data, rejected));
}
