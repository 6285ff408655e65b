import type { DataMetric } from './catalogue.js';
import type { UnitChange } from './data-series.js';
import { familyHeader, type Format } from './exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from './family-filter.js';
import { familyLines, openMetricsLines } from './unit-bytes.js';

/** A run of exposition bytes to send back to back (a large section is never one buffer). */
export type Rendered = readonly Buffer[];

/** Units per block of a family's lines: what one change re-joins, and what gzip deflates as one. */
export const BLOCK_UNITS = 32;

/**
 * A unit whose bytes run to at least this many is served from the buffer it was handed over in,
 * never copied into a block: an account-wide unit (10,000 flow-control keys, 2,000 schedules) is
 * megabytes that a copy would hold twice while it is made, at every poll that changes it
 * (BENCHMARKS.md, Designs tried for each byte held once).
 */
export const OWN_BUFFER_BYTES = 64 * 1024;

/** A unit as held: its lines of each family, and whether they are served from its own buffer. */
interface Unit {
  readonly lines: Map<string, Buffer>;
  readonly own: boolean;
}

/**
 * One section of /metrics as the serving thread holds it: each unit's lines as the poll worker
 * handed them over (kube-state-metrics' metrics store: per object, its rendered families), in unit
 * order, each byte once. A family's lines are served in blocks of {@link BLOCK_UNITS} units: the
 * small units' lines joined into one buffer, on demand and kept until one of their units changes
 * (the one cache here); once joined, a small unit's lines are read from the block, so that the
 * buffer it came in is let go. A large unit ({@link OWN_BUFFER_BYTES}) is served from its own
 * buffer. The bytes are the same in both formats; only the families' HELP and TYPE lines differ,
 * made once per catalogue. It outlives the worker: a restarted worker continues from it.
 */
export class SectionStore {
  #metrics: readonly DataMetric[] = [];
  /** Per family, its HELP and TYPE lines in each format. */
  #headers = new Map<string, Record<Format, Buffer>>();
  readonly #units = new Map<string, Unit>();
  /** The units held, in a fixed order, so the output does not depend on which poll finished first. */
  readonly #ids: string[] = [];
  /** Per family, its blocks (a hole: to be joined again). */
  readonly #blocks = new Map<string, (Rendered | undefined)[]>();
  #version = 0;

  /** `metrics`: every family of the section, in exposition order. */
  constructor(metrics: readonly DataMetric[]) {
    this.catalogue(metrics);
  }

  /** Replaces the families of the section (every one, in exposition order). */
  catalogue(metrics: readonly DataMetric[]): void {
    if (metrics === this.#metrics) return;
    this.#metrics = metrics;
    const header = (metric: DataMetric, format: Format): Buffer =>
      Buffer.from(familyHeader(metric.name, metric.help, metric.type ?? 'gauge', format), 'utf8');
    this.#headers = new Map(
      metrics.map((metric) => [
        metric.name,
        { text: header(metric, 'text'), openmetrics: header(metric, 'openmetrics') },
      ]),
    );
    this.#version++;
  }

  /** Takes what changed: each unit's new lines (kept as given, not copied), or its removal. */
  apply(changes: readonly UnitChange[]): void {
    for (const { id, unit } of changes) {
      const before = this.#units.get(id);
      if (before === undefined && unit === undefined) continue;
      const at = sortedIndex(this.#ids, id);
      const lines = unit === undefined ? undefined : familyLines(unit);
      if (before === undefined || lines === undefined) {
        // The set of units changed: every block after this one shifts.
        if (unit === undefined) this.#ids.splice(at, 1);
        else this.#ids.splice(at, 0, id);
        this.#blocks.clear();
      } else {
        // Only the blocks of the families the unit had or has now.
        for (const name of new Set([...before.lines.keys(), ...lines.keys()])) {
          // A family's OpenMetrics blocks hold the plain lines of the units without exemplars.
          for (const key of [name, openMetricsLines(name)]) {
            const blocks = this.#blocks.get(key);
            if (blocks !== undefined) blocks[Math.floor(at / BLOCK_UNITS)] = undefined;
          }
        }
      }
      if (unit === undefined || lines === undefined) this.#units.delete(id);
      else this.#units.set(id, { lines, own: unit.bytes.byteLength >= OWN_BUFFER_BYTES });
      this.#version++;
    }
  }

  /** The units held, in exposition order. */
  ids(): readonly string[] {
    return this.#ids;
  }

  /** Moves whenever {@link render}'s output may have. */
  get version(): number {
    return this.#version;
  }

  /** The section in `format`: each family with lines that `keep` shows, its HELP and TYPE first. */
  render(format: Format, keep: FamilyPredicate = ALL_FAMILIES): Rendered {
    const count = Math.ceil(this.#ids.length / BLOCK_UNITS);
    const chunks: Buffer[] = [];
    for (const { name: family } of this.#metrics) {
      if (!keep(family)) continue;
      // OpenMetrics reads a unit's lines with exemplars where it has them (unit-bytes.ts).
      const name = format === 'openmetrics' ? openMetricsLines(family) : family;
      let blocks = this.#blocks.get(name);
      if (blocks === undefined) this.#blocks.set(name, (blocks = []));
      const start = chunks.length;
      for (let at = 0; at < count; at++) {
        const block = (blocks[at] ??= this.#join(
          name,
          this.#ids.slice(at * BLOCK_UNITS, (at + 1) * BLOCK_UNITS),
          family,
        ));
        chunks.push(...block);
      }
      const header = this.#headers.get(family)?.[format];
      if (chunks.length > start && header !== undefined) chunks.splice(start, 0, header);
    }
    return chunks;
  }

  /**
   * A block: the small units' lines `name` (or `plain`'s, for a unit without them) joined, a large
   * unit's as they are, in unit order.
   */
  #join(name: string, ids: readonly string[], plain: string): Rendered {
    const block: Buffer[] = [];
    let run: [lines: Map<string, Buffer>, part: Buffer][] = [];
    const flush = (): void => {
      if (run.length > 0) block.push(joined(name, run));
      run = [];
    };
    for (const id of ids) {
      const unit = this.#units.get(id);
      const part = unit?.lines.get(name) ?? unit?.lines.get(plain);
      if (unit === undefined || part === undefined || part.length === 0) continue;
      if (!unit.own) run.push([unit.lines, part]);
      else {
        flush();
        block.push(part);
      }
    }
    flush();
    return block;
  }
}

/**
 * The lines of family `name` of `units`, in one buffer of its own (never a slice of Node's shared
 * pool, see unit-bytes.ts). Each unit's lines are read from it from now on: once every family of the
 * unit is joined, nothing refers to the buffer it came in, nor to a block this one replaces.
 */
function joined(name: string, units: readonly [lines: Map<string, Buffer>, part: Buffer][]): Buffer {
  let length = 0;
  for (const [, part] of units) length += part.length;
  const block = Buffer.allocUnsafeSlow(length);
  let offset = 0;
  for (const [lines, part] of units) {
    const end = offset + part.copy(block, offset);
    lines.set(name, block.subarray(offset, end));
    offset = end;
  }
  return block;
}

/** Where `id` is, or would be inserted, in the sorted `ids`. */
function sortedIndex(ids: readonly string[], id: string): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] ?? '') < id) low = middle + 1;
    else high = middle;
  }
  return low;
}
