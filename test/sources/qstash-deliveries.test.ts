import { afterEach, describe, expect, it } from 'vitest';
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
});
