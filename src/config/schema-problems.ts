import { z } from 'zod';
import { nearest } from './suggest.js';

// How zod's issues become the configuration's problems: paths as users write them, messages in the
// file's words.

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
