import { createHash } from 'node:crypto';
import type { Sample } from './sample.js';

/** Longest label value exported, in UTF-16 code units; longer ones are cut (see {@link limitLabelValue}). */
export const MAX_LABEL_VALUE_LENGTH = 1024;
/** Hex digits of the hash that keeps cut values apart. */
const HASH_DIGITS = 16;

// What every rewritten value ends with; a value that already ends so is rewritten too (below).
const HASH_SUFFIX = new RegExp(`~[0-9a-f]{${HASH_DIGITS}}$`);

/**
 * A label value Prometheus can store. Most values pass unchanged. One longer than
 * {@link MAX_LABEL_VALUE_LENGTH} keeps its head, followed by `~` and a hash of the whole value, so two
 * long keys with the same beginning stay two series. One with lone UTF-16 surrogates (which no UTF-8
 * text can carry) gets U+FFFD in their place and the same `~hash` suffix, since several such values
 * would otherwise collapse into one. One that already ends in `~` and sixteen hex digits gets a
 * suffix of its own too: spelled like another value's rewritten form, it would otherwise be the same
 * series. So distinct values always give distinct labels (barring a 64-bit hash collision).
 */
export function limitLabelValue(value: string): string {
  const wellFormed = toWellFormed(value);
  if (wellFormed === value && value.length <= MAX_LABEL_VALUE_LENGTH && !HASH_SUFFIX.test(value))
    return value;
  // Hash the UTF-16 code units, lone surrogates included: a UTF-8 encoding would lose them.
  const hash = createHash('sha256').update(Buffer.from(value, 'utf16le')).digest('hex').slice(0, HASH_DIGITS);
  // Cutting may split a surrogate pair: repair the head again.
  const head = toWellFormed(wellFormed.slice(0, MAX_LABEL_VALUE_LENGTH - HASH_DIGITS - 1));
  return `${head}~${hash}`;
}

/**
 * What a count may keep of a label value while a scan goes on, page after page (a DLQ's queue names):
 * the value itself when it is no longer than {@link MAX_LABEL_VALUE_LENGTH}, else its first that many
 * characters, `~` and the SHA-256 of the whole value. So a count holds at most about a label's length
 * per key, never the upstream text (an 80,000-character name), and distinct values stay distinct
 * keys. A stand-in is always longer than the cap, so {@link limitLabelValue} rewrites it later as it
 * would the value (the same head, a hash suffix, counted as truncated once per distinct value); only
 * the suffix is then a hash of the stand-in rather than of the whole value.
 */
export function labelKey(value: string): string {
  if (value.length <= MAX_LABEL_VALUE_LENGTH) return value;
  const hash = createHash('sha256').update(Buffer.from(value, 'utf16le')).digest('hex');
  // A copy, not a slice: V8 keeps a sliced string's parent alive, the whole 80,000 characters.
  const head = Buffer.from(value.slice(0, MAX_LABEL_VALUE_LENGTH), 'utf16le').toString('utf16le');
  return `${head}~${hash}`;
}

function toWellFormed(value: string): string {
  return value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * Applies {@link limitLabelValue} to every label of `samples`; `truncated` counts the distinct
 * values it rewrote (cut, repaired, or given a suffix of their own).
 */
export function limitSampleLabels(samples: readonly Sample[]): { samples: Sample[]; truncated: number } {
  const rewritten = new Set<string>();
  const out = samples.map((sample) => {
    if (sample.labels.every(([, value]) => limitLabelValue(value) === value)) return sample;
    const labels = sample.labels.map(([name, value]): readonly [string, string] => {
      const limited = limitLabelValue(value);
      if (limited !== value) rewritten.add(value);
      return [name, limited];
    });
    return { ...sample, labels };
  });
  return { samples: out, truncated: rewritten.size };
}
