import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { DataSeries } from '../../src/metrics/data-series.js';
import { BLOCK_UNITS, OWN_BUFFER_BYTES, SectionStore } from '../../src/metrics/section-store.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import type { FlowControlKey } from '../../src/upstash/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { redisStatsSamples } from '../../src/sources/redis-stats.js';

// The data section crosses from the poll worker as the units that changed (DataSeries.takeChanges)
// and is served from a SectionStore, family after family in blocks of units.

const text = (store: SectionStore, format: 'text' | 'openmetrics' = 'text') =>
  Buffer.concat(store.render(format)).toString('utf8');

describe('DataSeries.takeChanges and SectionStore', () => {
  it('serves every family once, units in order, in both formats', () => {
    const series = new DataSeries(DATA_METRICS);
    const store = new SectionStore(DATA_METRICS);
    series.replace('flow_control/b', flowControlSamples('b', [{ key: 'x "é"', waitListSize: 2 }], 10));
    series.replace('flow_control/a', flowControlSamples('a', [{ key: 'y', waitListSize: 3 }], 10));
    store.apply(series.takeChanges());
    for (const format of ['text', 'openmetrics'] as const) {
      const bytes = Buffer.concat(store.render(format));
      const out = bytes.toString('utf8');
      expect(out.match(/# HELP upstash_qstash_flow_control_wait_list_size /g)).toHaveLength(1);
      expect(out.indexOf('account="a"')).toBeLessThan(out.indexOf('account="b"'));
      expect(out).toContain('flow_control_key="x \\"é\\""} 2');
    }
  });

  it('hands over only the units that changed; a unit gone leaves the others as they were', () => {
    const series = new DataSeries(DATA_METRICS);
    const store = new SectionStore(DATA_METRICS);
    series.replace('flow_control/a', flowControlSamples('a', [{ key: 'y', waitListSize: 3 }], 10));
    store.apply(series.takeChanges());
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
    stats(5);
    store.apply(series.takeChanges());
    stats(6);
    const changed = series.takeChanges();
    expect(changed.map((change) => change.id)).toEqual(['redis_stats/main/db']);
    store.apply(changed);
    expect(text(store)).toMatch(/^upstash_redis_keys\{[^}]*\} 6$/m);
    expect(text(store)).toContain('flow_control_key="y"} 3');

    const version = store.version;
    series.drop('flow_control/a');
    store.apply(series.takeChanges());
    expect(store.version).toBeGreaterThan(version);
    expect(text(store)).not.toContain('flow_control');
    expect(text(store)).toMatch(/^upstash_redis_keys\{[^}]*\} 6$/m);
  });

  it('re-joins only the block of a unit that changed, each block a buffer of its own', () => {
    const series = new DataSeries(DATA_METRICS);
    const store = new SectionStore(DATA_METRICS);
    const poll = (i: number, size: number) =>
      series.replace(
        `flow_control/${String(i).padStart(3, '0')}`,
        flowControlSamples(`a${i}`, [{ key: 'k', waitListSize: size }], 10),
      );
    for (let i = 0; i < 100; i++) poll(i, 1);
    store.apply(series.takeChanges());
    const before = store.render('text');
    poll(40, 2);
    store.apply(series.takeChanges());
    const after = store.render('text');
    const blocks = Math.ceil(100 / BLOCK_UNITS);
    // Per family a header and its blocks: only block 40 / 32 is a new buffer.
    const changed = after.filter((chunk, at) => chunk !== before[at]);
    const families = after.length / (blocks + 1);
    expect(changed).toHaveLength(families);
    for (const chunk of after.filter((bytes) => !bytes.toString('utf8').startsWith('# '))) {
      expect(chunk.byteOffset).toBe(0);
      expect(chunk.buffer.byteLength).toBe(chunk.length);
    }
    expect(Buffer.concat(store.render('openmetrics')).toString('utf8')).toContain(
      'account="a40",flow_control_key="k"} 2',
    );
  });

  it('serves a large unit from the buffer it came in, beside the small units joined in its block', () => {
    const series = new DataSeries(DATA_METRICS);
    const store = new SectionStore(DATA_METRICS);
    const keys = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ key: `k${i}`, waitListSize: i }));
    series.replace('flow_control/a', flowControlSamples('a', keys(1), 10));
    series.replace('flow_control/b', flowControlSamples('b', keys(2000), 5000));
    series.replace('flow_control/c', flowControlSamples('c', keys(1), 10));
    const changes = series.takeChanges();
    const large = changes.find((change) => change.id === 'flow_control/b')?.unit;
    expect(large?.bytes.byteLength).toBeGreaterThanOrEqual(OWN_BUFFER_BYTES);
    store.apply(changes);
    const chunks = store.render('text');
    // Per family: the header, a's lines, b's in b's own buffer, c's lines.
    const own = chunks.filter((chunk) => chunk.buffer === large?.bytes.buffer);
    expect(own.length).toBeGreaterThan(0);
    expect(chunks.length).toBe(own.length * 4);
    const out = Buffer.concat(chunks).toString('utf8');
    expect(out.indexOf('account="a"')).toBeLessThan(out.indexOf('account="b"'));
    expect(out.indexOf('account="b",flow_control_key="k1999"')).toBeLessThan(out.indexOf('account="c"'));
    // A small unit's change re-joins its own lines, never the large unit's.
    series.replace('flow_control/c', flowControlSamples('c', keys(3), 10));
    store.apply(series.takeChanges());
    const after = store.render('openmetrics');
    expect(after.filter((chunk) => chunk.buffer === large?.bytes.buffer)).toHaveLength(own.length);
    expect(Buffer.concat(after).toString('utf8')).toContain('account="c",flow_control_key="k2"} 2');
  });

  it('holds its lines once after a render: the buffers handed over are let go for the blocks', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    /** ArrayBuffer bytes alive after a full collection (their memory is given back just after it). */
    const live = async (): Promise<number> => {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    const keys = Array.from({ length: 400 }, (_, i) => ({ key: `key-${i}`, waitListSize: i }));
    const base = await live();
    const store = new SectionStore(DATA_METRICS);
    // In a function of its own, so that no variable of this frame keeps what was handed over.
    const handed = handOver(store, 3 * BLOCK_UNITS, keys);
    expect(handed).toBeGreaterThan(3 * 2 ** 20);
    const rendered = store.render('text').reduce((sum, chunk) => sum + chunk.length, 0);
    expect(rendered).toBeGreaterThan(handed);
    // One copy of the lines (the blocks), not two (the blocks and the units' buffers).
    expect((await live()) - base).toBeLessThan(1.25 * handed);
    expect(text(store)).toContain('account="a95",flow_control_key="key-399"} 399');
  });
});

/** Gives `store` `units` flow-control units of `keys` each, as a publication does; answers their bytes. */
function handOver(store: SectionStore, units: number, keys: readonly FlowControlKey[]): number {
  const series = new DataSeries(DATA_METRICS);
  for (let unit = 0; unit < units; unit++) {
    series.replace(`flow_control/a${unit}`, flowControlSamples(`a${unit}`, keys, 1000));
  }
  const changes = series.takeChanges();
  store.apply(changes);
  return changes.reduce((sum, change) => sum + (change.unit?.bytes.length ?? 0), 0);
}
