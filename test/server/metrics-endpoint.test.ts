import { spawnSync } from 'node:child_process';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { DataSeries } from '../../src/metrics/data-series.js';
import {
  createMetricsEndpoint,
  keepWarm,
  MetricsEndpoint,
  renderedText,
  type Encoding,
  type PolledSections,
  type Section,
} from '../../src/server/metrics-endpoint.js';
import { registerProcessMetrics } from '../../src/metrics/process-metrics.js';
import { renderRegistry, type Format } from '../../src/metrics/exposition.js';
import { ALL_FAMILIES, familyPredicate, type FamilyPredicate } from '../../src/metrics/family-filter.js';
import { createSelfMetrics, type SelfMetrics } from '../../src/poller/self-metrics.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { namesIn } from '../helpers/exposition-parser.js';
import { Served } from '../helpers/served.js';

/** A section whose text and version the test sets, counting its renders. */
function section(text: string | ((format: Format) => string)) {
  const state = { text, version: 0, renders: 0 };
  const s: Section & { state: typeof state } = {
    state,
    version: () => state.version,
    render: (format) => {
      state.renders++;
      return renderedText(typeof state.text === 'string' ? state.text : state.text(format));
    },
  };
  return s;
}

/** A section whose renders after the first wait until the test lets them finish. */
function slowSection() {
  const waiting: (() => void)[] = [];
  const state = { version: 0, release: (): void => waiting.splice(0).forEach((resolve) => resolve()) };
  const s: Section & { state: typeof state } = {
    state,
    version: () => state.version,
    render: async () => {
      const version = state.version;
      if (version > 0) await new Promise<void>((resolve) => waiting.push(resolve));
      return renderedText(`data ${version}\n`);
    },
  };
  return s;
}

/** The data and health sections made on this thread, as the poll worker's publications carry them. */
function polledSections(series: DataSeries, metrics: SelfMetrics): PolledSections {
  return new Served(series, metrics).sections();
}

function processRegistry(): Registry {
  const registry = new Registry();
  registerProcessMetrics(registry);
  return registry;
}

/** The body as one buffer (the cache hands out chunks to be written back to back). */
async function bodyOf(cache: MetricsEndpoint, format: Format, encoding: Encoding): Promise<Buffer> {
  return Buffer.concat(await cache.body(format, encoding));
}

/** Checks that `body` is a single gzip member of `plain`, as a strict reader would. */
function expectOneGzipMember(body: Buffer, plain: string): void {
  expect(body.subarray(0, 3)).toEqual(Buffer.from([0x1f, 0x8b, 0x08]));
  const expected = Buffer.from(plain, 'utf8');
  // The deflate stream between header and trailer holds everything, and ends with the final block.
  // (Buffer.equals: vitest's deep equality walks large buffers byte by byte, slowly.)
  expect(inflateRawSync(body.subarray(10, body.length - 8)).equals(expected)).toBe(true);
  expect(body.readUInt32LE(body.length - 8)).toBe(crc32(expected));
  expect(body.readUInt32LE(body.length - 4)).toBe(expected.length);
  expect(gunzipSync(body).equals(expected)).toBe(true);
}

// Deterministic pseudo-random text with multi-byte characters, in sizes around deflate's window.
function randomText(seed: number, length: number): string {
  const alphabet = Array.from('abc xyz_{}="\\\n0123456789é€😀');
  let out = '';
  let h = seed;
  for (let i = 0; i < length; i++) {
    h = (Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    out += alphabet[h % alphabet.length] ?? '';
  }
  return out;
}

describe('MetricsEndpoint', () => {
  it('answers the sections back to back, plain or as one gzip member', async () => {
    const cache = new MetricsEndpoint([section('a 1\n'), section((f) => `b ${f}\n`), section('')]);
    expect((await bodyOf(cache, 'text', 'identity')).toString()).toBe('a 1\nb text\n');
    expect((await bodyOf(cache, 'openmetrics', 'identity')).toString()).toBe('a 1\nb openmetrics\n');
    expectOneGzipMember(await bodyOf(cache, 'text', 'gzip'), 'a 1\nb text\n');
  });

  it('stitches gzip correctly for empty, small, large and multi-byte sections', async () => {
    for (const sizes of [[0], [0, 0, 0], [1, 0, 70_000], [100_000, 5, 0], [33_000, 33_000, 33_000]]) {
      const texts = sizes.map((size, i) => randomText(size * 7 + i, size));
      const cache = new MetricsEndpoint(texts.map((text) => section(text)));
      expectOneGzipMember(await bodyOf(cache, 'text', 'gzip'), texts.join(''));
    }
  });

  it('renders a section once per version and format, however many scrapes', async () => {
    const data = section('data 1\n');
    const self = section('self 1\n');
    const cache = new MetricsEndpoint([data, self]);
    for (let i = 0; i < 5; i++) {
      await cache.body('text', 'identity');
      await cache.body('text', 'gzip');
    }
    expect([data.state.renders, self.state.renders]).toEqual([1, 1]);

    self.state.text = 'self 2\n';
    self.state.version++;
    expect((await bodyOf(cache, 'text', 'identity')).toString()).toBe('data 1\nself 2\n');
    expectOneGzipMember(await bodyOf(cache, 'text', 'gzip'), 'data 1\nself 2\n');
    expect([data.state.renders, self.state.renders]).toEqual([1, 2]);

    data.state.text = 'data 2\n';
    data.state.version++;
    // The CRC of a later section is chained from the earlier ones: it must follow their change.
    expectOneGzipMember(await bodyOf(cache, 'text', 'gzip'), 'data 2\nself 2\n');
    await cache.body('openmetrics', 'identity');
    expect([data.state.renders, self.state.renders]).toEqual([3, 3]);
  });

  it('deflates a chunk once while it lives, and sends the gzip member as its pieces, never joined', async () => {
    const kept = Buffer.from(randomText(5, 40_000));
    const state = { version: 0, moving: Buffer.from('moving 0\n') };
    const data: Section = { version: () => state.version, render: () => [kept, state.moving] };
    const cache = new MetricsEndpoint([data]);
    const before = await cache.body('text', 'gzip');
    state.version++;
    state.moving = Buffer.from('moving 1\n');
    const after = await cache.body('text', 'gzip');
    expectOneGzipMember(Buffer.concat(after), `${kept.toString()}moving 1\n`);
    // Header, the two deflated chunks, the final block and the trailer: nothing copied together.
    expect(after).toHaveLength(5);
    // The chunk that lived on is not deflated again: the same deflated bytes, not a copy.
    expect(after[1]).toBe(before[1]);
    expect(after[2]).not.toBe(before[2]);
  });

  it('shares one build between concurrent scrapes', async () => {
    const slow: Section & { renders: number } = {
      renders: 0,
      version: () => 1,
      render: async () => {
        slow.renders++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return renderedText('x 1\n');
      },
    };
    const cache = new MetricsEndpoint([slow]);
    const bodies = await Promise.all(Array.from({ length: 10 }, async () => cache.body('text', 'identity')));
    expect(new Set(bodies).size).toBe(1);
    expect(slow.renders).toBe(1);
  });

  it('does not keep a failed render', async () => {
    let fail = true;
    const flaky: Section = {
      version: () => 1,
      render: () => {
        if (fail) throw new Error('boom');
        return renderedText('ok 1\n');
      },
    };
    const cache = new MetricsEndpoint([flaky]);
    await expect(cache.body('text', 'identity')).rejects.toThrow('boom');
    fail = false;
    expect((await bodyOf(cache, 'text', 'identity')).toString()).toBe('ok 1\n');
  });

  it.runIf(spawnSync('gzip', ['--version']).status === 0)('is read by gzip(1) as one member', async () => {
    const texts = [randomText(3, 60_000), randomText(4, 40_000)];
    const cache = new MetricsEndpoint(texts.map((text) => section(text)));
    const body = await bodyOf(cache, 'text', 'gzip');
    const out = spawnSync('gzip', ['-dc'], { input: body, maxBuffer: 1 << 24 });
    expect(out.status).toBe(0);
    expect(out.stdout.toString('utf8')).toBe(texts.join(''));
  });

  it('serves the sections back to back, byte for byte but for process values, plain and gzip', async () => {
    const metrics = createSelfMetrics();
    const series = new DataSeries(DATA_METRICS);
    const labels = { source: 'flow_control', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
    metrics.declareSource(labels);
    metrics.pollStarted(labels);
    series.replace('flow_control/eu', flowControlSamples('eu', [{ key: 'k "1"', waitListSize: 3 }], 10));
    metrics.pollSucceeded(labels, 0.5, 1_700_000_000);
    const processes = processRegistry();
    const served = new Served(series, metrics);
    const cache = createMetricsEndpoint(served.sections(), processes);
    // Process and Node.js values move between two renders; names, labels and order must not.
    const shape = (text: string): string => text.replace(/^((?:process|nodejs)_\S*) .*$/gm, '$1 <value>');
    for (const format of ['text', 'openmetrics'] as const) {
      const before = `${served.text(format)}${await renderRegistry(processes, format)}${format === 'openmetrics' ? '# EOF\n' : ''}`;
      const now = (await bodyOf(cache, format, 'identity')).toString('utf8');
      expect(shape(now)).toBe(shape(before));
      expect(shape(gunzipSync(await bodyOf(cache, format, 'gzip')).toString('utf8'))).toBe(shape(before));
    }
  });

  it('shows a recorded poll at once, without waiting for the self-metrics refresh', async () => {
    const metrics = createSelfMetrics();
    const cache = createMetricsEndpoint(
      polledSections(new DataSeries(DATA_METRICS), metrics),
      processRegistry(),
    );
    const labels = { source: 'url_groups', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
    expect((await bodyOf(cache, 'text', 'identity')).toString()).not.toContain('upstash_up{');
    metrics.pollSucceeded(labels, 0.1, 1_700_000_000);
    expect((await bodyOf(cache, 'text', 'identity')).toString()).toContain(
      'upstash_up{source="url_groups",account="eu",database_id="",qstash_id="",index_id=""} 1',
    );
  });
});

describe('MetricsEndpoint.refresh', () => {
  it('rebuilds a body scraped before once its sections move, so the next scrape renders nothing', async () => {
    const data = section((format) => `data ${format}\n`);
    const cache = new MetricsEndpoint([data]);
    await cache.body('openmetrics', 'gzip');
    expect(data.state.renders).toBe(1);
    data.state.version++;
    await cache.refresh();
    // Only the format asked for is rebuilt, not every format.
    expect(data.state.renders).toBe(2);
    expectOneGzipMember(await bodyOf(cache, 'openmetrics', 'gzip'), 'data openmetrics\n');
    expect(data.state.renders).toBe(2);
    // Nothing moved: nothing to rebuild.
    await cache.refresh();
    expect(data.state.renders).toBe(2);
  });

  it('stops rebuilding a body nobody asked for in five seconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const data = section('data\n');
      const cache = new MetricsEndpoint([data]);
      await cache.body('text', 'identity');
      vi.setSystemTime(Date.now() + 5_001);
      data.state.version++;
      await cache.refresh();
      expect(data.state.renders).toBe(1);
      // Asked for again, it is rebuilt then, and kept warm from then on.
      expect((await bodyOf(cache, 'text', 'identity')).toString()).toBe('data\n');
      expect(data.state.renders).toBe(2);
      data.state.version++;
      await cache.refresh();
      expect(data.state.renders).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('MetricsEndpoint.refresh, while it rebuilds', () => {
  it('answers a scrape the body before at once, and the rebuilt one once it is done', async () => {
    const data = slowSection();
    const cache = new MetricsEndpoint([data]);
    const text = async (): Promise<string> => (await bodyOf(cache, 'text', 'identity')).toString();
    expect(await text()).toBe('data 0\n');
    data.state.version++;
    const refreshed = cache.refresh();
    // The rebuild waits on its render; the scrape does not wait for it.
    expect(await text()).toBe('data 0\n');
    data.state.release();
    await refreshed;
    expect(await text()).toBe('data 1\n');
  });

  it('makes the scrape after a reload wait for it: a reload shows at the next scrape', async () => {
    const data = slowSection();
    const cache = new MetricsEndpoint([data]);
    await bodyOf(cache, 'text', 'identity');
    data.state.version++;
    const refreshed = cache.refresh();
    cache.reconfigure(ALL_FAMILIES);
    const scraped = bodyOf(cache, 'text', 'identity');
    // Both renders wait: had the scrape been answered the body before, it would be over already.
    await new Promise((resolve) => setImmediate(resolve));
    let answered = false;
    void scraped.then(() => (answered = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    data.state.release();
    await refreshed;
    expect((await scraped).toString()).toBe('data 1\n');
  });
});

describe('MetricsEndpoint burst bound', () => {
  it('rebuilds for scrapes at most `burst` times a second, then answers the body as it is until a refresh', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const data = section(() => `data ${data.state.version}\n`);
      const cache = new MetricsEndpoint([data], { burst: 2 });
      const text = async (): Promise<string> => (await bodyOf(cache, 'text', 'identity')).toString();
      expect(await text()).toBe('data 0\n');
      data.state.version++;
      expect(await text()).toBe('data 1\n');
      data.state.version++;
      // Two builds within the second: the third move waits.
      expect(await text()).toBe('data 1\n');
      await cache.refresh();
      expect(await text()).toBe('data 2\n');
      data.state.version++;
      vi.setSystemTime(Date.now() + 1001);
      expect(await text()).toBe('data 3\n');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('keepWarm', () => {
  it('refreshes just after each second turns and at each publication, and never again once stopped', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      const data = section('data\n');
      const cache = new MetricsEndpoint([data]);
      await cache.body('text', 'identity');
      let publish: ((readied: boolean) => void) | undefined;
      const stop = keepWarm(cache, { onMoved: (listener) => (publish = listener) });
      data.state.version++;
      await vi.advanceTimersByTimeAsync(1001);
      expect(data.state.renders).toBe(2);
      // A publication refreshes at once, between the seconds.
      data.state.version++;
      publish?.(false);
      await vi.advanceTimersByTimeAsync(0);
      expect(data.state.renders).toBe(3);
      stop();
      data.state.version++;
      publish?.(false);
      await vi.advanceTimersByTimeAsync(3000);
      expect(data.state.renders).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('makes the scrape after the publication that readied the exporter wait for its rebuild', async () => {
    const data = slowSection();
    const cache = new MetricsEndpoint([data]);
    await bodyOf(cache, 'text', 'identity');
    let publish: ((readied: boolean) => void) | undefined;
    const stop = keepWarm(cache, { onMoved: (listener) => (publish = listener) });
    try {
      data.state.version++;
      publish?.(true);
      const scraped = bodyOf(cache, 'text', 'identity');
      let answered = false;
      void scraped.then(() => (answered = true));
      await new Promise((resolve) => setImmediate(resolve));
      // Not answered the body before: /readyz says 200 now, and this scrape must show why.
      expect(answered).toBe(false);
      data.state.release();
      expect((await scraped).toString()).toBe('data 1\n');
    } finally {
      stop();
    }
  });
});

describe('metrics.allow and metrics.deny', () => {
  /** A cache over one flow-control poll and the exporter's own metrics, shown through `keep`. */
  function filteredCache(keep: FamilyPredicate) {
    const metrics = createSelfMetrics();
    const series = new DataSeries(DATA_METRICS);
    const labels = { source: 'flow_control', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
    metrics.declareSource(labels);
    series.replace('flow_control/eu', flowControlSamples('eu', [{ key: 'k', waitListSize: 3 }], 10));
    metrics.pollSucceeded(labels, 0.5, 1_700_000_000);
    return { cache: createMetricsEndpoint(polledSections(series, metrics), processRegistry(), keep), series };
  }

  it('leaves a family out entirely, HELP and TYPE too, in both formats, gzip or not', async () => {
    const keep = familyPredicate({
      allow: [],
      deny: [
        'upstash_up',
        'upstash_exporter_.*',
        'process_.*',
        'nodejs_.*',
        'upstash_qstash_flow_control_keys',
      ],
    });
    const { cache } = filteredCache(keep);
    for (const format of ['text', 'openmetrics'] as const) {
      const plain = (await bodyOf(cache, format, 'identity')).toString('utf8');
      expect(gunzipSync(await bodyOf(cache, format, 'gzip')).toString('utf8')).toBe(plain);
      const names = [...namesIn(plain)];
      expect(names.length, format).toBeGreaterThan(0);
      for (const name of names) {
        expect(name, format).toMatch(/^upstash_qstash_flow_control_/);
        expect(name, format).not.toBe('upstash_qstash_flow_control_keys');
      }
      expect(plain.endsWith('# EOF\n')).toBe(format === 'openmetrics');
    }
  });

  it('an allow list shows only what it names', async () => {
    const { cache } = filteredCache(familyPredicate({ allow: ['upstash_up', 'process_.*'], deny: [] }));
    const names = namesIn((await bodyOf(cache, 'openmetrics', 'identity')).toString('utf8'));
    expect(names.has('upstash_up')).toBe(true);
    expect(names.has('process_cpu_seconds')).toBe(true);
    for (const name of names) expect(name).toMatch(/^(upstash_up|process_.*)$/);
  });

  it('asks about each family when a section renders, never per scrape', async () => {
    const asked: string[] = [];
    const keep = familyPredicate({ allow: [], deny: ['nodejs_.*'] });
    const { cache } = filteredCache((name) => {
      asked.push(name);
      return keep(name);
    });
    // The clock stands still: the process metrics' version moves when a second turns.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await cache.body('text', 'identity');
      const families = asked.length;
      expect(families).toBeGreaterThan(10);
      // As many questions as families: once each.
      expect(new Set(asked).size).toBe(families);
      await cache.body('text', 'identity');
      await cache.body('text', 'gzip');
      expect(asked.length).toBe(families);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a reload applies new lists at the next scrape, whatever the burst limit', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const data = section(() => `data ${data.state.version}\n`);
      const cache = new MetricsEndpoint([data], { burst: 1 });
      const text = async (): Promise<string> => (await bodyOf(cache, 'text', 'identity')).toString();
      expect(await text()).toBe('data 0\n');
      data.state.version++;
      // One build this second already: the move waits for a refresh.
      expect(await text()).toBe('data 0\n');
      cache.reconfigure(ALL_FAMILIES);
      expect(await text()).toBe('data 1\n');
      // And then cached as before.
      expect(await text()).toBe('data 1\n');
      expect(data.state.renders).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('renders a section with the lists of the latest reload', async () => {
    const { cache } = filteredCache(ALL_FAMILIES);
    expect(namesIn((await bodyOf(cache, 'text', 'identity')).toString()).has('upstash_up')).toBe(true);
    cache.reconfigure(familyPredicate({ allow: [], deny: ['upstash_up'] }));
    expect(namesIn((await bodyOf(cache, 'text', 'identity')).toString()).has('upstash_up')).toBe(false);
    expect(namesIn(gunzipSync(await bodyOf(cache, 'text', 'gzip')).toString()).has('upstash_up')).toBe(false);
    cache.reconfigure(ALL_FAMILIES);
    expect(namesIn((await bodyOf(cache, 'text', 'identity')).toString()).has('upstash_up')).toBe(true);
  });
});
