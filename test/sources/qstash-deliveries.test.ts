import { afterEach, describe, expect, it, vi } from 'vitest';
import { SectionStore } from '../../src/metrics/section-store.js';
import { renderUnit } from '../../src/metrics/unit-bytes.js';
import { EventStore } from '../../src/sources/event-store.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { qstashDeliveries } from '../../src/sources/qstash-deliveries.js';
import { qstashLogs } from '../../src/sources/qstash-logs.js';
import type { SourceResult } from '../../src/sources/source.js';
import { parseExposition, valueOf } from '../helpers/exposition-parser.js';
import { simulatedSources, type SimulatedSources } from '../helpers/source-poll.js';

// qstash_deliveries (docs/metrics.md, Delivery errors and workflow runs) polled over HTTP from the
// simulator: the DELIVERED events of QStash's log counted once by destination, its scan series under
// the QStash log's names, beside qstash_logs' in one exposition.

let open: SimulatedSources | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await open?.close();
  open = undefined;
});

/** The exporter began polling ten minutes ago. */
const START = Date.now() - 600_000;

let asked: { route: string; query: URLSearchParams }[] = [];

async function setUp(): Promise<SimulatedSources> {
  asked = [];
  open = await simulatedSources({
    onRequest: (route, path) => asked.push({ route, query: new URL(`http://x${path}`).searchParams }),
  });
  return open;
}

const event = (time: number, id: string, state: string, host: string, extra: object = {}) => ({
  time,
  messageId: id,
  state,
  url: `https://${host}/hook?token=secret`,
  topicName: 'orders',
  ...extra,
});

/** The value of the counter for `destination`, 0 when it has no sample. */
function delivered(result: SourceResult, destination: string): number {
  return result.samples
    .filter((s) => s.metric.name === 'upstash_qstash_deliveries_total')
    .filter((s) => s.labels.some(([k, v]) => k === 'destination' && v === destination))
    .reduce((sum, s) => sum + s.value, 0);
}

describe('qstash_deliveries', () => {
  it('counts each DELIVERED event once by destination, polls after polls, asking only for DELIVERED', async () => {
    const { sim, poll } = await setUp();
    const events = new EventStore({ now: () => START }).of('eu', 'qstash_deliveries');
    sim.setQstashLogs([
      event(START + 1000, 'm1', 'DELIVERED', 'a.example.com'),
      event(START + 2000, 'm2', 'DELIVERED', 'a.example.com', { responseStatus: 'not a number' }),
      event(START + 3000, 'm3', 'DELIVERED', 'b.example.com'),
      event(START + 4000, 'm4', 'ERROR', 'a.example.com', { responseStatus: 500 }),
    ]);
    const first = await poll(qstashDeliveries, events);
    expect(delivered(first, 'https://a.example.com')).toBe(2);
    expect(delivered(first, 'https://b.example.com')).toBe(1);
    // The response status is not read: a wrong one is no rejected field.
    expect(first.rejectedFields).toEqual([]);
    expect(first.warnings).toEqual([]);
    const labels = first.samples.find((s) => s.metric.name === 'upstash_qstash_deliveries_total')?.labels;
    expect(labels?.map(([name]) => name)).toEqual([
      'account',
      'destination',
      'url_group',
      'queue',
      'schedule_id',
    ]);
    expect(JSON.stringify(first.samples)).not.toContain('secret');

    sim.setQstashLogs([
      event(START + 1000, 'm1', 'DELIVERED', 'a.example.com'),
      event(START + 3000, 'm3', 'DELIVERED', 'b.example.com'),
      event(START + 5000, 'm5', 'DELIVERED', 'b.example.com'),
    ]);
    const second = await poll(qstashDeliveries, events);
    expect(delivered(second, 'https://a.example.com')).toBe(2);
    expect(delivered(second, 'https://b.example.com')).toBe(2);

    const reads = asked.filter((a) => a.route === 'qstash_logs');
    expect(reads.map((a) => a.query.get('state'))).toEqual(['DELIVERED', 'DELIVERED']);
    expect(reads.map((a) => a.query.get('count'))).toEqual(['100', '100']);
    // The second poll reads from W − event_settle, here before the start (W is START + 3 s): from the start.
    expect(reads.map((a) => a.query.get('fromDate'))).toEqual([String(START), String(START)]);
  });

  it('says a scan stopped at max_event_pages under the QStash log scan names, state DELIVERED', async () => {
    const { sim, poll } = await setUp();
    sim.setQstashLogs(
      Array.from({ length: 250 }, (_, k) =>
        event(START + 1000 + k * 200, `m${k}`, 'DELIVERED', 'a.example.com'),
      ),
    );
    const events = new EventStore({ now: () => START }).of('eu', 'qstash_deliveries');
    const capped = await poll(qstashDeliveries, events, { maxEventPages: 2 });
    expect(delivered(capped, 'https://a.example.com')).toBe(200);
    expect(capped.warnings).toEqual([
      'scan stopped at max_event_pages (2 pages) for DELIVERED: 11 s of the log not read, its events not counted',
    ]);
    const scan = capped.samples.filter((s) => s.metric.name.startsWith('upstash_qstash_logs_'));
    expect(scan.map((s) => [s.metric.name, s.labels, s.value])).toEqual([
      [
        'upstash_qstash_logs_scan_complete',
        [
          ['account', 'eu'],
          ['state', 'DELIVERED'],
        ],
        0,
      ],
      [
        'upstash_qstash_logs_unread_seconds_total',
        [
          ['account', 'eu'],
          ['state', 'DELIVERED'],
        ],
        11,
      ],
      [
        'upstash_qstash_logs_watermark_timestamp_seconds',
        [
          ['account', 'eu'],
          ['state', 'DELIVERED'],
        ],
        (START + 1000 + 249 * 200) / 1000,
      ],
    ]);
    expect(events.states.has('qstash_deliveries/DELIVERED')).toBe(true);
  });

  it('reads the SDK path after a 404, for itself only', async () => {
    const { sim, poll } = await setUp();
    sim.setQstashLogs([event(START + 1000, 'm1', 'DELIVERED', 'a.example.com')]);
    sim.setFault('qstash_logs', { kind: 'status', status: 404, times: 1 });
    const store = new EventStore({ now: () => START });
    const result = await poll(qstashDeliveries, store.of('eu', 'qstash_deliveries'));
    expect(delivered(result, 'https://a.example.com')).toBe(1);
    expect([...store.of('eu').sdkPaths]).toEqual(['qstash_deliveries']);
    expect(sim.requests('qstash_events')).toBe(1);
  });

  it('shares the QStash log scan families with qstash_logs: one HELP and TYPE each in the exposition', async () => {
    const { sim, poll } = await setUp();
    sim.setQstashLogs([
      event(START + 1000, 'm1', 'DELIVERED', 'a.example.com'),
      event(START + 2000, 'm2', 'ERROR', 'a.example.com', { responseStatus: 500 }),
    ]);
    const store = new EventStore({ now: () => START });
    const logs = await poll(qstashLogs, store.of('eu', 'qstash_logs'));
    const deliveries = await poll(qstashDeliveries, store.of('eu', 'qstash_deliveries'));
    const names = DATA_METRICS.map((metric) => metric.name);
    expect(names.length).toBe(new Set(names).size);
    // The two sources' units, held and rendered as the serving side does: family by family.
    const section = new SectionStore(DATA_METRICS);
    section.apply([
      { id: 'qstash/eu/qstash_logs', unit: renderUnit(logs.samples) },
      { id: 'qstash/eu/qstash_deliveries', unit: renderUnit(deliveries.samples) },
    ]);
    const body = Buffer.concat(section.render('text')).toString();
    expect(body.match(/^# TYPE upstash_qstash_logs_scan_complete /gm)).toHaveLength(1);
    expect(body.match(/^# HELP upstash_qstash_logs_unread_seconds_total /gm)).toHaveLength(1);
    const samples = parseExposition(body);
    for (const state of ['ERROR', 'FAILED', 'DELIVERED'])
      expect(valueOf(samples, 'upstash_qstash_logs_scan_complete', { state })).toBe(1);
    expect(
      valueOf(samples, 'upstash_qstash_deliveries_total', { destination: 'https://a.example.com' }),
    ).toBe(1);
    expect(
      valueOf(samples, 'upstash_qstash_delivery_errors_total', { destination: 'https://a.example.com' }),
    ).toBe(1);
  });

  it('says a destination above the error ratio since the previous poll, with at least 5 attempts a minute', async () => {
    // Only Date is faked: the minutes between two polls are the test's.
    vi.useFakeTimers({ toFake: ['Date'] });
    let now = START + 600_000;
    vi.setSystemTime(now);
    const { sim, poll } = await setUp();
    const store = new EventStore({ now: () => START });
    const logs = store.of('eu', 'qstash_logs');
    const deliveries = store.of('eu', 'qstash_deliveries');
    const served: ReturnType<typeof event>[] = [];
    let id = 0;
    /** `n` events of `state` to `host`, one a millisecond after the last served. */
    const add = (n: number, state: string, host: string) => {
      for (let k = 0; k < n; k++) served.push(event(now - 30_000 + id, `m${id++}`, state, host));
      sim.setQstashLogs([...served].reverse());
    };
    const both = async () => {
      await poll(qstashLogs, logs);
      return (await poll(qstashDeliveries, deliveries)).warnings;
    };
    add(10, 'DELIVERED', 'a.example.com');
    add(10, 'ERROR', 'a.example.com');
    // The first poll is the baseline: nothing said, whatever the log holds.
    expect(await both()).toEqual([]);

    now += 60_000;
    vi.setSystemTime(now);
    add(10, 'DELIVERED', 'a.example.com');
    add(2, 'ERROR', 'a.example.com'); // 2 of 12: above 5 %
    add(19, 'DELIVERED', 'b.example.com');
    add(1, 'ERROR', 'b.example.com'); // 1 of 20: 5 %, not above
    add(1, 'DELIVERED', 'c.example.com');
    add(3, 'ERROR', 'c.example.com'); // 3 of 4: fewer than 5 attempts in the minute
    const said = await both();
    expect(said).toEqual([
      '1 destination failed more than 5 % of its delivery attempts since the previous poll (at least 5 attempts a minute)',
    ]);
    expect(JSON.stringify(said)).not.toContain('example.com');

    // Two minutes later: c's 6 errors and 3 deliveries are 9 attempts, fewer than 5 a minute.
    now += 120_000;
    vi.setSystemTime(now);
    add(3, 'DELIVERED', 'c.example.com');
    add(6, 'ERROR', 'c.example.com');
    add(20, 'DELIVERED', 'a.example.com');
    add(2, 'ERROR', 'a.example.com');
    add(20, 'ERROR', 'b.example.com');
    expect(await both()).toEqual([
      '2 destinations failed more than 5 % of their delivery attempts since the previous poll (at least 5 attempts a minute)',
    ]);

    // Healthy again: said no more.
    now += 60_000;
    vi.setSystemTime(now);
    add(20, 'DELIVERED', 'a.example.com');
    add(20, 'DELIVERED', 'b.example.com');
    expect(await both()).toEqual([]);
  });

  it('says nothing of the error ratio without qstash_logs in the entry', async () => {
    const { sim, poll } = await setUp();
    const deliveries = new EventStore({ now: () => START }).of('eu', 'qstash_deliveries');
    sim.setQstashLogs([
      event(START + 3000, 'm3', 'ERROR', 'a.example.com', { responseStatus: 500 }),
      event(START + 2000, 'm2', 'ERROR', 'a.example.com', { responseStatus: 500 }),
      event(START + 1000, 'm1', 'DELIVERED', 'a.example.com'),
    ]);
    expect((await poll(qstashDeliveries, deliveries)).warnings).toEqual([]);
    expect((await poll(qstashDeliveries, deliveries)).warnings).toEqual([]);
    expect([...deliveries.states.keys()]).toEqual(['qstash_deliveries/DELIVERED']);
  });

  it('one budget of destinations: a destination is under its name in errors and deliveries, or other in both', async () => {
    const { sim, poll } = await setUp();
    const store = new EventStore({ now: () => START });
    sim.setQstashLogs([
      event(START + 4000, 'm4', 'ERROR', 'b.example.com', { responseStatus: 500 }),
      event(START + 3000, 'm3', 'ERROR', 'a.example.com', { responseStatus: 500 }),
      event(START + 2000, 'm2', 'DELIVERED', 'a.example.com'),
      event(START + 1000, 'm1', 'DELIVERED', 'b.example.com'),
    ]);
    // Errors first: b (the newest) takes the one place; the deliveries then fold a, keep b.
    const logs = await poll(qstashLogs, store.of('eu', 'qstash_logs'), { maxEventSeries: 1 });
    const deliveries = await poll(qstashDeliveries, store.of('eu', 'qstash_deliveries'), {
      maxEventSeries: 1,
    });
    const destinations = (result: SourceResult, name: string) =>
      result.samples
        .filter((x) => x.metric.name === name)
        .map((x) => x.labels.find(([k]) => k === 'destination')?.[1])
        .sort();
    expect(destinations(logs, 'upstash_qstash_delivery_errors_total')).toEqual([
      'https://b.example.com',
      'other',
    ]);
    expect(destinations(deliveries, 'upstash_qstash_deliveries_total')).toEqual([
      'https://b.example.com',
      'other',
    ]);
    // One destination folded, said once: by the first poll that folded it, not by the other source.
    expect(logs.labelValuesDropped).toBe(1);
    expect(deliveries.labelValuesDropped).toBeUndefined();
  });
});
