import { crc32 } from 'node:zlib';
import type { DataMetric } from './catalogue.js';
import { crc32Combine } from './crc32-combine.js';
import type { FamilyLines } from './data-series.js';
import { familyHeader, type Format } from './exposition.js';

/** A run of exposition bytes to send back to back, with the CRC-32 of all of them. */
export interface Rendered {
  readonly chunks: readonly Buffer[];
  readonly crc: number;
}

/**
 * The data section as the serving thread holds it: the lines of each family as the poll worker last
 * sent them (see {@link DataSeries.takeChanges}), and their HELP and TYPE lines, made here once per
 * format. Rendering a format is a list of views, never a copy; its CRC is chained from the CRCs the
 * worker computed, without reading the bytes again.
 */
export class FamilyTable {
  readonly #metrics: readonly DataMetric[];
  readonly #lines = new Map<string, FamilyLines>();
  readonly #headers = new Map<string, { bytes: Buffer; crc: number }>();
  readonly #rendered = new Map<Format, Rendered>();
  #version = 0;

  /** `metrics` are every family, in exposition order. */
  constructor(metrics: readonly DataMetric[]) {
    this.#metrics = metrics;
  }

  /** Takes the families that changed (all of them when `whole`: what was held before is dropped). */
  apply(changes: readonly FamilyLines[], whole: boolean): void {
    if (whole) this.#lines.clear();
    if (!whole && changes.length === 0) return;
    for (const change of changes) {
      if (change.lines.length === 0) this.#lines.delete(change.name);
      else this.#lines.set(change.name, change);
    }
    this.#rendered.clear();
    this.#version++;
  }

  /** Moves whenever {@link render}'s output may have. */
  get version(): number {
    return this.#version;
  }

  /** The data section in `format`: each family with samples, its header first. */
  render(format: Format): Rendered {
    let rendered = this.#rendered.get(format);
    if (rendered !== undefined) return rendered;
    const chunks: Buffer[] = [];
    let crc = 0;
    for (const metric of this.#metrics) {
      const family = this.#lines.get(metric.name);
      if (family === undefined) continue;
      const header = this.#header(metric, format);
      chunks.push(header.bytes, family.lines);
      crc = crc32Combine(crc32Combine(crc, header.crc, header.bytes.length), family.crc, family.lines.length);
    }
    rendered = { chunks, crc };
    this.#rendered.set(format, rendered);
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
