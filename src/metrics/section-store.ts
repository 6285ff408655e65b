import type { DataMetric } from './catalogue.js';
import type { UnitChange } from './data-series.js';
import { familyHeader, type Format } from './exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from './family-filter.js';
import { familyLines, openMetricsLines } from './unit-bytes.js';

/** A run of exposition bytes to send back to back (a large section is never one buffer). */
export type Rendered = readonly Buffer[];

/** Units per block of a family's lines: what one change re-joins, and what the gzip cache deflates. */
export const BLOCK_UNITS = 32;

/**
 * One section of /metrics as the serving thread holds it, the one copy of its bytes: each unit's
 * lines as the poll worker handed them over (kube-state-metrics' metrics store: per object, its
 * rendered families), in unit order. A family's lines are served in blocks of {@link BLOCK_UNITS}
 * units, joined on demand and kept until one of their units changes: a scrape's
 * chunks are a few thousand buffers, not a million, and a poll that lands re-joins one block per
 * family it touched. Once joined, a unit's lines are read from its blocks, so that the buffer handed
 * over is let go and the section is held once, not twice (the units' and the blocks'). It outlives the
 * worker: a restarted worker continues from it.
 */
export class SectionStore {
  #metrics: readonly DataMetric[];
  /** Per unit, its lines of each family: the buffer handed over, then a range of the block joined from it. */
  readonly #units = new Map<string, Map<string, Buffer>>();
  #order: readonly string[] | undefined;
  #position: ReadonlyMap<string, number> | undefined;
  /** Per family, its joined blocks of lines (a hole: to be joined again). */
  readonly #blocks = new Map<string, (Buffer | undefined)[]>();
  readonly #headers = new Map<string, Buffer>();
  #version = 0;

  /** `metrics`: every family of the section, in exposition order. */
  constructor(metrics: readonly DataMetric[]) {
    this.#metrics = metrics;
  }

  /** Replaces the families of the section (every one, in exposition order). */
  catalogue(metrics: readonly DataMetric[]): void {
    if (metrics === this.#metrics) return;
    this.#metrics = metrics;
    this.#version++;
  }

  /** Takes what changed: each unit's new lines (kept as given, not copied), or its removal. */
  apply(changes: readonly UnitChange[]): void {
    for (const { id, unit } of changes) {
      const before = this.#units.get(id);
      const after = unit === undefined ? undefined : familyLines(unit);
      if (before === undefined && after === undefined) continue;
      if ((before === undefined) !== (after === undefined)) {
        // The set of units changed: every block after this one shifts.
        this.#order = undefined;
        this.#position = undefined;
        this.#blocks.clear();
      } else {
        const at = Math.floor((this.#positions().get(id) ?? 0) / BLOCK_UNITS);
        for (const name of new Set([...(before?.keys() ?? []), ...(after?.keys() ?? [])])) {
          // A family's OpenMetrics blocks hold the plain lines of the units without exemplars.
          for (const key of [name, openMetricsLines(name)]) {
            const blocks = this.#blocks.get(key);
            if (blocks !== undefined) blocks[at] = undefined;
          }
        }
      }
      if (after === undefined) this.#units.delete(id);
      else this.#units.set(id, after);
      this.#version++;
    }
  }

  /** The units held, in exposition order. */
  ids(): readonly string[] {
    return this.#ids();
  }

  /** Moves whenever {@link render}'s output may have. */
  get version(): number {
    return this.#version;
  }

  /** The section in `format`: each family with lines that `keep` shows, its HELP and TYPE first. */
  render(format: Format, keep: FamilyPredicate = ALL_FAMILIES): Rendered {
    const ids = this.#ids();
    const count = Math.ceil(ids.length / BLOCK_UNITS);
    const chunks: Buffer[] = [];
    for (const metric of this.#metrics) {
      if (!keep(metric.name)) continue;
      // OpenMetrics reads a unit's lines with exemplars where it has them (unit-bytes.ts).
      const name = format === 'openmetrics' ? openMetricsLines(metric.name) : metric.name;
      let blocks = this.#blocks.get(name);
      if (blocks === undefined) this.#blocks.set(name, (blocks = []));
      let header = false;
      for (let at = 0; at < count; at++) {
        const block = (blocks[at] ??= this.#join(
          name,
          ids.slice(at * BLOCK_UNITS, (at + 1) * BLOCK_UNITS),
          metric.name,
        ));
        if (block.length === 0) continue;
        if (!header) {
          header = true;
          chunks.push(this.#header(metric, format));
        }
        chunks.push(block);
      }
    }
    return chunks;
  }

  /** Joins the lines `name` of units `ids`, or `plain`'s of a unit without them. */
  #join(name: string, ids: readonly string[], plain: string): Buffer {
    const parts: [unit: Map<string, Buffer>, part: Buffer][] = [];
    let length = 0;
    for (const id of ids) {
      const unit = this.#units.get(id);
      const part = unit?.get(name) ?? unit?.get(plain);
      if (unit !== undefined && part !== undefined && part.length > 0) {
        parts.push([unit, part]);
        length += part.length;
      }
    }
    // A buffer of its own, never a slice of Node's shared pool (see unit-bytes.ts).
    const lines = Buffer.allocUnsafeSlow(length);
    let offset = 0;
    for (const [unit, part] of parts) {
      const end = offset + part.copy(lines, offset);
      // The unit's lines of this family are read from the block from now on: once every family of
      // the unit is joined, nothing refers to the buffer it came in, nor to a block this one replaces.
      unit.set(name, lines.subarray(offset, end));
      offset = end;
    }
    return lines;
  }

  #positions(): ReadonlyMap<string, number> {
    this.#position ??= new Map(this.#ids().map((id, at) => [id, at]));
    return this.#position;
  }

  /** Units in a fixed order, so the output does not depend on which poll finished first. */
  #ids(): readonly string[] {
    this.#order ??= [...this.#units.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.#order;
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
