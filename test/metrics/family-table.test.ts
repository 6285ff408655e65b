import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../src/metrics/crc32-combine.js';
import { DataSeries } from '../../src/metrics/data-series.js';
import { FamilyTable } from '../../src/metrics/family-table.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { redisStatsSamples } from '../../src/sources/redis-stats.js';

// The data section crosses from the poll worker as the families that changed (DataSeries.takeChanges)
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

  it('hands over only the families that changed, and an emptied family as empty', () => {
    const series = new DataSeries(DATA_METRICS);
    const table = new FamilyTable(DATA_METRICS);
    series.replace('flow_control/a', flowControlSamples('a', [{ key: 'y', waitListSize: 3 }], 10));
    const first = series.takeChanges();
    // The first hand-over names every family, so that a fresh table is whole.
    expect(first.map((family) => family.name)).toEqual(DATA_METRICS.map((metric) => metric.name));
    table.apply(first, true);
    expect(series.takeChanges()).toEqual([]);

    series.replace(
      'redis_stats/main/db',
      redisStatsSamples('main', 'db', {
        values: { keyspace: 5 },
        commands: new Map(),
        sampleTimestampMs: undefined,
        rejected: [],
      }),
    );
    const changed = series.takeChanges();
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((family) => family.name.startsWith('upstash_redis_'))).toBe(true);
    table.apply(changed, false);
    expect(Buffer.concat(table.render('text').chunks).toString('utf8')).toBe(series.render('text'));

    const version = table.version;
    series.drop('flow_control/a');
    const dropped = series.takeChanges();
    expect(dropped.every((family) => family.lines.length === 0)).toBe(true);
    table.apply(dropped, false);
    expect(table.version).toBeGreaterThan(version);
    expect(Buffer.concat(table.render('text').chunks).toString('utf8')).toBe(series.render('text'));
    expect(series.render('text')).not.toContain('flow_control');
  });

  it('gives each family a buffer of its own, to be transferred without taking others along', () => {
    const series = new DataSeries(DATA_METRICS);
    series.replace('flow_control/a', flowControlSamples('a', [{ key: 'y', waitListSize: 3 }], 10));
    for (const { lines } of series.takeChanges()) {
      expect(lines.byteOffset).toBe(0);
      expect(lines.buffer.byteLength).toBe(lines.length);
    }
  });
});
