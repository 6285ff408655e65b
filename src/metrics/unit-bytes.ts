import { crc32 } from 'node:zlib';
import { formatExemplar, formatLabels, formatValue } from './exposition.js';
import type { LabelPairs, Sample } from './sample.js';

/**
 * One unit's series rendered to exposition lines, the unit of what the poll worker hands over (as
 * kube-state-metrics' store keeps each object's rendered bytes): one buffer of its own, each family's
 * lines a range of it. The serving thread keeps it as given (worker/store.ts); the worker keeps only
 * its {@link UnitBytes.hash}, to know what changed.
 */
export interface UnitBytes {
  /** The unit's lines, family after family; memory of its own, to be transferred (moved, not copied). */
  readonly bytes: Uint8Array;
  /** Per family, in the order of `bytes`: its name and the end of its lines (each starts where the one before ends). */
  readonly families: readonly (readonly [name: string, end: number])[];
  /** CRC-32 of `bytes`, mixed with its length: what the worker compares to know the unit changed. */
  readonly hash: number;
}

/** A unit's lines as text, family after family, and what is known of them before any bytes exist. */
export interface UnitText {
  readonly texts: readonly { readonly name: string; readonly text: string; readonly length: number }[];
  /** {@link UnitBytes.hash} of the bytes {@link unitBytes} would make. */
  readonly hash: number;
}

/**
 * The name under which a unit holds a family's lines as OpenMetrics shows them, when any of its
 * samples has an exemplar (docs/metrics.md, Exemplars): the text format, which has no exemplars,
 * serves the family's own lines, OpenMetrics these.
 */
export function openMetricsLines(name: string): string {
  return `${name}\u0000openmetrics`;
}

/** Renders a unit's samples to bytes ({@link unitText}, then {@link unitBytes}). */
export function renderUnit(samples: readonly Sample[]): UnitBytes {
  return unitBytes(unitText(samples));
}

/**
 * Renders a unit's samples to text, with the hash of its bytes taken from the text: a poll that
 * changes nothing is known as such without allocating the unit's buffer. Two samples with one name
 * and label set would be one series to Prometheus, which keeps either: they throw
 * {@link DuplicateSeriesError}.
 */
export function unitText(samples: readonly Sample[]): UnitText {
  const lines = new Map<
    string,
    { readonly lines: string[]; readonly seen: Set<string>; withExemplars?: string[] }
  >();
  // Sources give the samples of one entity one label array (a flow-control key has up to seven
  // samples): its labels are escaped and formatted once.
  let lastLabels: LabelPairs | undefined;
  let labelText = '';
  for (const { metric, labels, value, suffix = '', exemplar } of samples) {
    if (labels !== lastLabels) {
      labelText = formatLabels(labels);
      lastLabels = labels;
    }
    let family = lines.get(metric.name);
    if (family === undefined) {
      family = { lines: [], seen: new Set() };
      lines.set(metric.name, family);
    }
    const series = suffix === '' ? labelText : `${suffix}${labelText}`;
    if (family.seen.has(series)) throw new DuplicateSeriesError(metric.name);
    family.seen.add(series);
    // The pieces, not a line made of them: join copies each once, where a template would first make
    // a rope per line for join to flatten.
    const shown = exemplar === undefined ? undefined : formatExemplar(exemplar);
    // A family gets its OpenMetrics lines from its first exemplar on: the lines before, then each
    // line again, with its exemplar where it has one.
    if (shown !== undefined && family.withExemplars === undefined) family.withExemplars = [...family.lines];
    family.lines.push(metric.name, suffix, labelText, ' ', formatValue(value), '\n');
    family.withExemplars?.push(metric.name, suffix, labelText, ' ', formatValue(value), shown ?? '', '\n');
  }
  let crc = 0;
  let total = 0;
  const texts = [...lines].flatMap(([name, family]) => {
    const parts = [{ name, text: family.lines.join('') }];
    if (family.withExemplars !== undefined)
      parts.push({ name: openMetricsLines(name), text: family.withExemplars.join('') });
    return parts.map(({ name, text }) => {
      const length = Buffer.byteLength(text, 'utf8');
      // The CRC-32 of a string is that of its UTF-8 bytes (of none, the CRC it is handed).
      crc = crc32(text, crc);
      total += length;
      return { name, text, length };
    });
  });
  // No bytes hash to 0: the CRC of none is 0, mixed with a length of 0.
  return { texts, hash: (crc ^ total) >>> 0 };
}

/** A unit's text as the buffer of its own that is handed over. */
export function unitBytes({ texts, hash }: UnitText): UnitBytes {
  // One allocation per unit, never a slice of Node's shared 8 KiB pool: a transferred buffer takes
  // its whole backing store with it, and one long-lived view would keep a slab of dead ones alive.
  const bytes = Buffer.allocUnsafeSlow(texts.reduce((sum, { length }) => sum + length, 0));
  const families: [string, number][] = [];
  let offset = 0;
  for (const { name, text, length } of texts) {
    bytes.write(text, offset, 'utf8');
    offset += length;
    families.push([name, offset]);
  }
  return { bytes, families, hash };
}

/** A family's lines in a unit's bytes, by name (empty when the unit has none of it). */
export function familyLines(unit: UnitBytes): Map<string, Buffer> {
  const whole = Buffer.from(unit.bytes.buffer, unit.bytes.byteOffset, unit.bytes.byteLength);
  const out = new Map<string, Buffer>();
  let start = 0;
  for (const [name, end] of unit.families) {
    out.set(name, whole.subarray(start, end));
    start = end;
  }
  return out;
}

/** A poll produced two samples of one series: a fault of the mapping, not of the data. */
export class DuplicateSeriesError extends Error {
  constructor(metric: string) {
    super(`two samples of one ${metric} series`);
    this.name = 'DuplicateSeriesError';
  }
}
