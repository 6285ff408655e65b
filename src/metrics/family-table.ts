import { crc32 } from 'node:zlib';
import type { DataMetric } from './catalogue.js';
import { crc32Combine } from './crc32-combine.js';
import type { Block, FamilyBlocks } from './data-series.js';
import { familyHeader, type Format } from './exposition.js';
import { ALL_FAMILIES, type FamilyPredicate } from './family-filter.js';

/** A run of exposition bytes to send back to back, with the CRC-32 of all of them. */
export interface Rendered {
  readonly chunks: readonly Buffer[];
  readonly crc: number;
}

/**
 * A section as the serving thread holds it: the lines of each family, block by block, as the poll
 * worker last sent them (see {@link DataSeries.takeChanges}), and their HELP and TYPE lines, made
 * here once per format. Rendering a format is a list of the buffers, never a copy; its CRC is chained
 * from the CRCs the worker computed, without reading the bytes again.
 */
export class FamilyTable {
  readonly #metrics: readonly DataMetric[];
  readonly #blocks = new Map<string, Block[]>();
  readonly #headers = new Map<string, { bytes: Buffer; crc: number }>();
  /** Per format, the last rendering and the families it showed. */
  readonly #rendered = new Map<Format, { keep: FamilyPredicate; rendered: Rendered }>();
  #version = 0;

  /** `metrics` are every family, in exposition order. */
  constructor(metrics: readonly DataMetric[]) {
    this.#metrics = metrics;
  }

  /** Takes the blocks that changed (all of them when `whole`: what was held before is dropped). */
  apply(changes: readonly FamilyBlocks[], whole: boolean): void {
    if (whole) this.#blocks.clear();
    if (!whole && changes.length === 0) return;
    for (const { name, blocks, changed } of changes) {
      const held = this.#blocks.get(name) ?? [];
      held.length = Math.min(held.length, blocks);
      for (const block of changed) held[block.index] = block;
      this.#blocks.set(name, held);
    }
    this.#rendered.clear();
    this.#version++;
  }

  /** Moves whenever {@link render}'s output may have. */
  get version(): number {
    return this.#version;
  }

  /** The section in `format`: each family with samples that `keep` shows, its header first. */
  render(format: Format, keep: FamilyPredicate = ALL_FAMILIES): Rendered {
    const last = this.#rendered.get(format);
    if (last?.keep === keep) return last.rendered;
    const chunks: Buffer[] = [];
    let crc = 0;
    for (const metric of this.#metrics) {
      if (!keep(metric.name)) continue;
      const blocks = this.#blocks.get(metric.name)?.filter((block) => block.lines.length > 0) ?? [];
      if (blocks.length === 0) continue;
      const header = this.#header(metric, format);
      chunks.push(header.bytes);
      crc = crc32Combine(crc, header.crc, header.bytes.length);
      for (const block of blocks) {
        chunks.push(block.lines);
        crc = crc32Combine(crc, block.crc, block.lines.length);
      }
    }
    const rendered = { chunks, crc };
    this.#rendered.set(format, { keep, rendered });
    return rendered;
  }

  #header(metric: DataMetric, format: Format): { bytes: Buffer; crc: number } {
    const key = `${format}/${metric.name}`;
    let header = this.#headers.get(key);
    if (header === undefined) {
      const bytes = Buffer.from(
        familyHeader(metric.name, metric.help, metric.type ?? 'gauge', format),
        'utf8',
      );
      header = { bytes, crc: crc32(bytes) };
      this.#headers.set(key, header);
    }
    return header;
  }
}
