import { createHash } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import type { Sample } from './samples.js';
import type { SourceLabels } from './self-metrics.js';

/** Longest label value exported, in UTF-16 code units; longer ones are cut (see {@link limitLabelValue}). */
export const MAX_LABEL_VALUE_LENGTH = 1024;
/** Hex digits of the hash that keeps cut values apart. */
const HASH_DIGITS = 16;

/**
 * A label value Prometheus can store. Most values pass unchanged. One longer than
 * {@link MAX_LABEL_VALUE_LENGTH} keeps its head, followed by `~` and a hash of the whole value, so two
 * long keys with the same beginning stay two series. One with lone UTF-16 surrogates (which no UTF-8
 * text can carry) gets U+FFFD in their place and the same `~hash` suffix, since several such values
 * would otherwise collapse into one.
 */
export function limitLabelValue(value: string): string {
  const wellFormed = toWellFormed(value);
  if (wellFormed === value && value.length <= MAX_LABEL_VALUE_LENGTH) return value;
  // Hash the UTF-16 code units, lone surrogates included: a UTF-8 encoding would lose them.
  const hash = createHash('sha256').update(Buffer.from(value, 'utf16le')).digest('hex').slice(0, HASH_DIGITS);
  // Cutting may split a surrogate pair: repair the head again.
  const head = toWellFormed(wellFormed.slice(0, MAX_LABEL_VALUE_LENGTH - HASH_DIGITS - 1));
  return `${head}~${hash}`;
}

function toWellFormed(value: string): string {
  return value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Applies {@link limitLabelValue} to polled samples and counts the values it had to cut. */
export interface LabelLimiter {
  limit(source: SourceLabels, samples: readonly Sample[]): Sample[];
  /** Removes the counter of a source that is no longer configured. */
  forget(source: SourceLabels): void;
}

/** Registers `upstash_exporter_label_values_truncated_total` and returns the limiter that feeds it. */
export function createLabelLimiter(registry: Registry): LabelLimiter {
  const truncated = new Counter({
    name: 'upstash_exporter_label_values_truncated_total',
    help: `Label values of polled series cut to ${MAX_LABEL_VALUE_LENGTH} characters (head, "~" and a hash of the whole value), counted once per value and poll (count).`,
    labelNames: ['source', 'account', 'database_id'],
    registers: [registry],
  });
  return {
    limit(source, samples) {
      truncated.inc(source, 0);
      const cut = new Set<string>();
      const out = samples.map((sample) => {
        if (sample.labels.every(([, value]) => limitLabelValue(value) === value)) return sample;
        const labels = sample.labels.map(([name, value]): readonly [string, string] => {
          const limited = limitLabelValue(value);
          if (value.length > MAX_LABEL_VALUE_LENGTH) cut.add(value);
          return [name, limited];
        });
        return { ...sample, labels };
      });
      if (cut.size > 0) truncated.inc(source, cut.size);
      return out;
    },
    forget(source) {
      truncated.remove({ ...source });
    },
  };
}
