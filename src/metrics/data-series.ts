import { crc32 } from 'node:zlib';
import type { DataMetric } from './catalogue.js';
import { familyHeader, formatLabels, formatValue, type Format } from './exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from './family-filter.js';
import type { LabelPairs, Sample } from './sample.js';

/**
 * The polled data series of every source, and their exposition, kept as bytes.
 *
 * A large account is ~80,000 series and 8 MB of text, so how it is held decides the exporter's
 * footprint. Each source's lines are rendered once, when its poll lands, into one buffer per metric
 * (outside the JS heap: the garbage collector never walks them). A family's lines across sources are
 * joined on demand and kept until one of its sources changes, and both formats share them: text and
 * OpenMetrics differ only in the family headers. {@link chunks} hands the cache those buffers, never
 * one string of the whole section (a string of megabytes, built by concatenation, is a rope of a
 * million pieces that the collector walks on every cycle).
 */
export class DataSeries {
  readonly #metrics: readonly DataMetric[];
  /** Per source: metric name → its sample lines. */
  readonly #bySource = new Map<string, ReadonlyMap<string, Buffer>>();
  readonly #counts = new Map<string, number>();
  /** Per metric: the lines of every source, in source order; dropped when one of them changes. */
  readonly #families = new Map<string, Buffer>();
  /** Per format and metric: its HELP and TYPE lines. */
  readonly #headers = new Map<string, Buffer>();
  #sourceOrder: readonly string[] | undefined;
  #indexOf: { readonly order: readonly string[]; readonly index: ReadonlyMap<string, number> } | undefined;
  #version = 0;
  /**
   * What changed since the last {@link takeChanges}: per source, the families it had or has; none
   * before the first call, or once the set of sources changed (every block moves then).
   */
  #changed: Map<string, Set<string>> | undefined;

  /** `metrics` are every family a source may fill, in exposition order. */
  constructor(metrics: readonly DataMetric[]) {
    this.#metrics = metrics;
  }

  /**
   * Replaces every series of a source: whatever the new samples do not name is gone. Two samples
   * with one name and label set would be one series to Prometheus, which keeps either: they throw
   * {@link DuplicateSeriesError} and leave the source's series as they were.
   */
  replace(sourceId: string, samples: readonly Sample[]): void {
    const lines = new Map<string, { readonly lines: string[]; readonly seen: Set<string> }>();
    // Sources give the samples of one entity one label array (a flow-control key has up to seven
    // samples): its labels are escaped and formatted once.
    let lastLabels: LabelPairs | undefined;
    let labelText = '';
    for (const { metric, labels, value, suffix = '' } of samples) {
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
      family.lines.push(metric.name, suffix, labelText, ' ', formatValue(value), '\n');
    }
    // One allocation per source, each metric a view of it: small buffers would otherwise come from
    // Node's shared 8 KiB pool, where one long-lived view keeps a whole slab of dead ones alive. The
    // text is encoded straight into it.
    const texts = [...lines].map(([name, family]) => {
      const text = family.lines.join('');
      return { name, text, length: Buffer.byteLength(text, 'utf8') };
    });
    const whole = Buffer.allocUnsafeSlow(texts.reduce((sum, { length }) => sum + length, 0));
    const bytes = new Map<string, Buffer>();
    let offset = 0;
    for (const { name, text, length } of texts) {
      whole.write(text, offset, 'utf8');
      bytes.set(name, whole.subarray(offset, offset + length));
      offset += length;
    }
    const previous = this.#bySource.get(sourceId);
    if (previous === undefined) this.#sourceOrder = undefined;
    this.#bySource.set(sourceId, bytes);
    this.#counts.set(sourceId, samples.length);
    if (previous === undefined) this.#changed = undefined;
    this.#forget(sourceId, previous);
    this.#forget(sourceId, bytes);
    this.#version++;
  }

  /** Drops every series of a source (its data went stale). */
  drop(sourceId: string): void {
    const previous = this.#bySource.get(sourceId);
    if (previous === undefined) return;
    this.#bySource.delete(sourceId);
    this.#counts.delete(sourceId);
    this.#sourceOrder = undefined;
    this.#changed = undefined;
    this.#forget(sourceId, previous);
    this.#version++;
  }

  /** Whether a source currently has series exposed. */
  has(sourceId: string): boolean {
    return this.#bySource.has(sourceId);
  }

  /** How many data series are exposed in all. */
  get size(): number {
    let total = 0;
    for (const count of this.#counts.values()) total += count;
    return total;
  }

  /** Changes whenever {@link chunks}' output may have. */
  get version(): number {
    return this.#version;
  }

  /**
   * The data section of /metrics as bytes to send back to back; families without samples, and those
   * `keep` does not show, are left out.
   */
  chunks(format: Format, keep: FamilyPredicate = ALL_FAMILIES): Buffer[] {
    const sources = this.#sources();
    const out: Buffer[] = [];
    for (const metric of this.#metrics) {
      if (!keep(metric.name)) continue;
      let lines = this.#families.get(metric.name);
      if (lines === undefined) {
        const parts: Buffer[] = [];
        for (const id of sources) {
          const part = this.#bySource.get(id)?.get(metric.name);
          if (part !== undefined) parts.push(part);
        }
        lines = parts.length === 1 && parts[0] !== undefined ? parts[0] : own(parts);
        this.#families.set(metric.name, lines);
      }
      if (lines.length > 0) out.push(this.#header(metric, format), lines);
    }
    return out;
  }

  /** The data section as one string (for tests and tools; /metrics sends {@link chunks}). */
  render(format: Format, keep: FamilyPredicate = ALL_FAMILIES): string {
    return Buffer.concat(this.chunks(format, keep)).toString('utf8');
  }

  /**
   * What changed since the last call, for the poll worker to hand the serving thread: the lines of
   * each family cut into blocks of {@link BLOCK_SOURCES} sources (in source order), and of each
   * family the blocks whose lines changed, each joined into a buffer of its own (empty: no samples
   * there) with its CRC-32. The first call, and the first after a source came or went, gives every
   * block of every family. The buffers' memory moves with them; a block that did not change is
   * neither copied nor sent again, so a publication costs what landed since the last (50 databases'
   * stats every half second touch two or three blocks of 32 per family, not the 1,000 databases).
   */
  takeChanges(): FamilyBlocks[] {
    const sources = this.#sources();
    const blocks = Math.ceil(sources.length / BLOCK_SOURCES);
    const changed = this.#changed;
    this.#changed = new Map();
    const touched = new Map<string, Set<number>>();
    if (changed !== undefined) {
      const index = this.#index();
      for (const [id, names] of changed) {
        const at = index.get(id);
        if (at === undefined) continue;
        for (const name of names) {
          let set = touched.get(name);
          if (set === undefined) touched.set(name, (set = new Set()));
          set.add(Math.floor(at / BLOCK_SOURCES));
        }
      }
    }
    const changes: FamilyBlocks[] = [];
    for (const metric of this.#metrics) {
      const which =
        changed === undefined
          ? Array.from({ length: blocks }, (_, i) => i)
          : [...(touched.get(metric.name) ?? [])];
      if (which.length === 0 && changed !== undefined) continue;
      changes.push({
        name: metric.name,
        blocks,
        changed: which.map((block) => {
          const parts: Buffer[] = [];
          for (const id of sources.slice(block * BLOCK_SOURCES, (block + 1) * BLOCK_SOURCES)) {
            const part = this.#bySource.get(id)?.get(metric.name);
            if (part !== undefined) parts.push(part);
          }
          const lines = own(parts);
          return { index: block, lines, crc: lines.length === 0 ? 0 : crc32(lines) };
        }),
      });
    }
    return changes;
  }

  /** Drops the joined lines of every family a source had or has, and notes the change. */
  #forget(sourceId: string, lines: ReadonlyMap<string, Buffer> | undefined): void {
    if (lines === undefined) return;
    let names = this.#changed?.get(sourceId);
    if (this.#changed !== undefined && names === undefined) this.#changed.set(sourceId, (names = new Set()));
    for (const name of lines.keys()) {
      this.#families.delete(name);
      names?.add(name);
    }
  }

  /** Each source's place in {@link #sources}. */
  #index(): ReadonlyMap<string, number> {
    const sources = this.#sources();
    if (this.#indexOf?.order !== sources) {
      this.#indexOf = { order: sources, index: new Map(sources.map((id, at) => [id, at])) };
    }
    return this.#indexOf.index;
  }

  /** Sources in a fixed order, so the output does not depend on which poll finished first. */
  #sources(): readonly string[] {
    this.#sourceOrder ??= [...this.#bySource.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.#sourceOrder;
  }

  #header(metric: DataMetric, format: Format): Buffer {
    const key = `${format}/${metric.name}`;
    let header = this.#headers.get(key);
    if (header === undefined) {
      header = Buffer.from(familyHeader(metric.name, metric.help, metric.type ?? 'gauge', format), 'utf8');
      this.#headers.set(key, header);
    }
    return header;
  }
}

/** Sources per block of a family's lines, as {@link DataSeries.takeChanges} hands them over. */
export const BLOCK_SOURCES = 32;

/** The lines of some sources of one family, in a buffer of its own. */
export interface Block {
  /** Which block: the sources from `index` × {@link BLOCK_SOURCES} on, in source order. */
  readonly index: number;
  readonly lines: Buffer;
  /** CRC-32 of `lines` (0 when empty). */
  readonly crc: number;
}

/** A family's changed blocks, and how many blocks it has now (those beyond are gone). */
export interface FamilyBlocks {
  readonly name: string;
  readonly blocks: number;
  readonly changed: readonly Block[];
}

/** `parts` joined into a buffer of its own (never a slice of Node's shared pool). */
function own(parts: readonly Buffer[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = Buffer.allocUnsafeSlow(length);
  let offset = 0;
  for (const part of parts) offset += part.copy(out, offset);
  return out;
}

/** A poll produced two samples of one series: a fault of the mapping, not of the data. */
export class DuplicateSeriesError extends Error {
  constructor(metric: string) {
    super(`two samples of one ${metric} series`);
    this.name = 'DuplicateSeriesError';
  }
}
