import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../src/metrics/crc32-combine.js';
import { BLOCK_SOURCES, DataSeries } from '../../src/metrics/data-series.js';
import { FamilyTable } from '../../src/metrics/family-table.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { redisStatsSamples } from '../../src/sources/redis-stats.js';

// The data section crosses from the poll worker as the blocks that changed (DataSeries.takeChanges)
// and is served from a FamilyTable: byte for byte what the DataSeries itself renders, with the CRC-32
// of those bytes chained from per-family CRCs.

describe('crc32Combine', () => {
  it('is the CRC-32 of two runs back to back, for empty, small, large and multi-byte runs', () => {
    const runs = ['', 'a', 'hello ', 'é€😀'.repeat(777), 'x'.repeat(100_003)].map((s) => Buffer.from(s));
    for (const a of runs) {
      for (const b of runs) {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }
    }
  });
});

describe('DataSeries.takeChanges and FamilyTable', () => {
  it('serves what the DataSeries renders, in both formats, with the CRC of those bytes', () => {
    const series = new DataSeries(DATA_METRICS);
    const table = new FamilyTable(DATA_METRICS);
    series.replace('flow_control/b', flowControlSamples('b', [{ key: 'x "é"', waitListSize: 2 }], 10));
    series.replace('flow_control/a', flowControlSamples('a', [{ key: 'y', waitListSize: 3 }], 10));
    table.apply(series.takeChanges(), true);
    for (const format of ['text', 'openmetrics'] as const) {
      const { chunks, crc } = table.render(format);
      const bytes = Buffer.concat(chunks);
      expect(bytes.toString('utf8')).toBe(series.render(format));
      expect(crc).toBe(crc32(bytes));
    }
  });

  it('hands over only the families that changed, and everything once a source came or went', () => {
    const series = new DataSeries(DATA_METRICS);
    const table = new FamilyTable(DATA_METRICS);
    series.replace('flow_control/a', flowControlSamples('a', [{ key: 'y', waitListSize: 3 }], 10));
    const first = series.takeChanges();
    // The first hand-over names every family, so that a fresh table is whole.
    expect(first.map((family) => family.name)).toEqual(DATA_METRICS.map((metric) => metric.name));
    table.apply(first, true);
    expect(series.takeChanges()).toEqual([]);

    const stats = (keyspace: number) =>
      series.replace(
        'redis_stats/main/db',
        redisStatsSamples('main', 'db', {
          values: { keyspace },
          commands: new Map(),
          sampleTimestampMs: undefined,
          rejected: [],
        }),
      );
    // A new source moves the blocks after it: the next hand-over is whole again.
    stats(5);
    table.apply(series.takeChanges(), true);
    stats(6);
    const changed = series.takeChanges();
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((family) => family.name.startsWith('upstash_redis_'))).toBe(true);
    table.apply(changed, false);
    expect(Buffer.concat(table.render('text').chunks).toString('utf8')).toBe(series.render('text'));

    const version = table.version;
    series.drop('flow_control/a');
    // A source gone moves every block: the next hand-over is whole.
    const dropped = series.takeChanges();
    expect(dropped.map((family) => family.name)).toEqual(DATA_METRICS.map((metric) => metric.name));
    table.apply(dropped, true);
    expect(table.version).toBeGreaterThan(version);
    expect(Buffer.concat(table.render('text').chunks).toString('utf8')).toBe(series.render('text'));
    expect(series.render('text')).not.toContain('flow_control');
  });

  it('hands over only the block of a source that changed, each block a buffer of its own', () => {
    const series = new DataSeries(DATA_METRICS);
    const table = new FamilyTable(DATA_METRICS);
    const poll = (i: number, size: number) =>
      series.replace(
        `flow_control/${String(i).padStart(3, '0')}`,
        flowControlSamples(`a${i}`, [{ key: 'k', waitListSize: size }], 10),
      );
    for (let i = 0; i < 100; i++) poll(i, 1);
    table.apply(series.takeChanges(), true);
    poll(40, 2);
    const changes = series.takeChanges();
    expect(changes.length).toBeGreaterThan(0);
    for (const family of changes) {
      expect(family.blocks).toBe(Math.ceil(100 / BLOCK_SOURCES));
      expect(family.changed.map((block) => block.index)).toEqual([Math.floor(40 / BLOCK_SOURCES)]);
      for (const { lines } of family.changed) {
        expect(lines.byteOffset).toBe(0);
        expect(lines.buffer.byteLength).toBe(lines.length);
      }
    }
    table.apply(changes, false);
    for (const format of ['text', 'openmetrics'] as const) {
      const { chunks, crc } = table.render(format);
      expect(Buffer.concat(chunks).toString('utf8')).toBe(series.render(format));
      expect(crc).toBe(crc32(Buffer.concat(chunks)));
    }
  });
});
