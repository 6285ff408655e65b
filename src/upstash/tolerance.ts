import { z } from 'zod';

// One tolerance rule per kind of field, for every body (docs/metrics.md, Redis database statistics):
// - a key field (the name or ID a listing's series hang on) is all-or-nothing: a listing with one bad
//   key is invalid_response;
// - any other field that is missing or null is absent; one of the wrong type is absent too, and named
//   as rejected (counted in upstash_exporter_fields_rejected_total), the rest of its entry kept.

/**
 * Whether `value` is a number field's value: a finite double, as zod's `z.number()` has it. JSON.parse
 * reads `1e400` as Infinity, which Upstash's Go API cannot send and which would turn sums into +Inf, so
 * it is a wrong type (docs/metrics.md, Redis database statistics); beyond 2^53 is finite, and kept.
 */
export function isNumber(value: unknown): value is number {
  // Number.isFinite never converts: a string or boolean is no number to it.
  return Number.isFinite(value);
}

/** A number field's schema: {@link isNumber}. */
export const number = z.number();

/** What an optional field of the wrong type parses to, until {@link tolerated} takes it out. */
const REJECTED: unique symbol = Symbol('rejected field');

/**
 * An optional field of a listing entry. Missing or null, it is `missing` (undefined unless given:
 * Upstash omits zero values, so a missing count can mean 0); a value `type` refuses is marked, for
 * {@link tolerated} to make absent and name, instead of failing the whole listing. A rejected field
 * is absent, never `missing`: a count we could not read is not a zero.
 */
export function optional<T extends z.ZodType, const D extends z.output<T> | undefined = undefined>(
  type: T,
  missing: D = undefined as D,
) {
  return z
    .unknown()
    .optional()
    .transform((value): z.output<T> | D | typeof REJECTED => {
      if (value === undefined || value === null) return missing;
      const parsed = type.safeParse(value);
      return parsed.success ? parsed.data : REJECTED;
    });
}

/** A parsed entry whose rejected optional fields read as absent. */
export type Tolerated<E> = {
  [K in keyof E]: typeof REJECTED extends E[K] ? Exclude<E[K], typeof REJECTED> | undefined : E[K];
};

/** `entry` with its rejected optional fields made absent; their names are added to `rejected`. */
export function tolerated<E extends object>(entry: E, rejected: Set<string>): Tolerated<E> {
  let out: Record<string, unknown> | undefined;
  for (const [field, value] of Object.entries(entry)) {
    if (value !== REJECTED) continue;
    out ??= { ...entry } as Record<string, unknown>;
    out[field] = undefined;
    rejected.add(field);
  }
  return (out ?? entry) as Tolerated<E>;
}

/**
 * The hand-written side of the rule, for the entries read by the thousand (the event sources' pages):
 * the same verdicts as {@link optional} and {@link tolerated} give, without building a zod result and a
 * copy of the entry per field. Each reads one field of `entry`: missing or null is `undefined`; a
 * value of the wrong type is `undefined` too and its name is added to `rejected`. A reader that uses
 * them answers exactly what its zod schema would (a property test holds each one to it).
 */
export function textField(entry: Readonly<Record<string, unknown>>, field: string, rejected: Set<string>) {
  const value = entry[field];
  if (typeof value === 'string') return value;
  if (value !== undefined && value !== null) rejected.add(field);
  return undefined;
}

/** {@link textField} of a number field ({@link isNumber}); `integer`: a safe integer, as zod's `.int()`. */
export function numberField(
  entry: Readonly<Record<string, unknown>>,
  field: string,
  rejected: Set<string>,
  integer = false,
): number | undefined {
  const value = entry[field];
  if (integer ? Number.isSafeInteger(value) : isNumber(value)) return value as number;
  if (value !== undefined && value !== null) rejected.add(field);
  return undefined;
}

/** `value` as an object whose fields can be read (what `z.object` accepts), or undefined. */
export function entryObject(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An optional text field ({@link optional} of a string), absent when missing. */
export const optionalText = optional(z.string());

/** An optional number field ({@link optional} of {@link number}), absent when missing. */
const optionalNumber = optional(number);

/** The schema shape of optional number fields `fields` (a listing's limits), for a `z.object`. */
export function optionalNumbers<K extends string>(fields: readonly K[]): Record<K, typeof optionalNumber> {
  return Object.fromEntries(fields.map((field) => [field, optionalNumber])) as Record<
    K,
    typeof optionalNumber
  >;
}

/**
 * An on/off setting: a boolean, or `"true"`/`"false"` as Upstash sends some of them; anything else
 * is a value of the wrong type.
 */
export const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((text) => text === 'true')]);

/** An optional setting ({@link optional} of {@link flag}), absent when missing. */
const optionalFlag = optional(flag);

/** The schema shape of optional settings `fields` (a listing's switches), for a `z.object`. */
export function optionalFlags<K extends string>(fields: readonly K[]): Record<K, typeof optionalFlag> {
  return Object.fromEntries(fields.map((field) => [field, optionalFlag])) as Record<K, typeof optionalFlag>;
}

/** The fields among `fields` that `entry` has a value for (a listing's limits, its switches). */
export function presentFields<E extends object, K extends keyof E & string>(
  entry: E,
  fields: readonly K[],
): Partial<{ [F in K]: Exclude<E[F], undefined> }> {
  const out: Partial<{ [F in K]: Exclude<E[F], undefined> }> = {};
  for (const field of fields) {
    const value = entry[field];
    if (value !== undefined) out[field] = value as Exclude<E[K], undefined>;
  }
  return out;
}
