import { connect, type Socket } from 'node:net';
import { expect, test } from 'vitest';
import { valueOf } from '../helpers/exposition-parser.js';
import { eventually, startHarness } from '../helpers/harness.js';

// Load on /metrics: a large exposition (~2,500 series), 40 scrapers hammering it back to back and 150
// slow readers that pipeline requests and never read an answer. Polls must keep their schedule,
// /healthz must keep answering, and memory must stay bounded.

const SECONDS = Number(process.env.LOAD_SECONDS ?? 25);
const SCRAPERS = 40;
const SLOW_READERS = 150;
const MB = 1024 * 1024;

function slowReader(port: number): Socket {
  const socket = connect(port, '127.0.0.1');
  socket.on('connect', () => {
    // Several pipelined requests, then never read: the answers pile up in the kernel and in Node.
    socket.write('GET /metrics HTTP/1.1\r\nHost: exporter\r\n\r\n'.repeat(5));
    socket.pause();
  });
  socket.on('error', () => undefined);
  return socket;
}

test(`load: ${SCRAPERS} scrapers and ${SLOW_READERS} slow readers for ${SECONDS}s`, async () => {
  const h = await startHarness({
    intervalSeconds: 1,
    logLevel: 'info',
    sim: { flowControlKeys: 1000, urlGroups: 400, frozen: true },
  });
  const readers: Socket[] = [];
  try {
    const labels = { source: 'flow_control', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
    const first = await eventually('first polls landed', async () => {
      const scrape = await h.scrape();
      return scrape.text.length > 100_000 ? scrape : undefined;
    });
    const pollsBefore = valueOf(first.samples, 'upstash_exporter_polls_total', labels)!;
    (globalThis as { gc?: () => void }).gc?.();
    const rssBefore = process.memoryUsage().rss;

    for (let i = 0; i < SLOW_READERS; i++) readers.push(slowReader(h.address.port));
    const started = Date.now();
    const end = started + SECONDS * 1000;
    let scrapes = 0;
    const scrapers = Array.from({ length: SCRAPERS }, async () => {
      while (Date.now() < end) {
        const reply = await h.get('/metrics', { 'accept-encoding': scrapes % 2 === 0 ? 'gzip' : 'identity' });
        expect(reply.status).toBe(200);
        scrapes++;
      }
    });
    const health: number[] = [];
    let rssMax = 0;
    const prober = (async () => {
      while (Date.now() < end) {
        const reply = await h.get('/healthz');
        expect(reply.status).toBe(200);
        health.push(reply.ms);
        rssMax = Math.max(rssMax, process.memoryUsage().rss);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    await Promise.all([...scrapers, prober]);
    const elapsedS = (Date.now() - started) / 1000;

    const after = await h.scrape();
    const polls = valueOf(after.samples, 'upstash_exporter_polls_total', labels)! - pollsBefore;
    const skipped = valueOf(after.samples, 'upstash_exporter_polls_skipped_total', labels)!;
    const sorted = [...health].sort((a, b) => a - b);
    const p90 = sorted[Math.floor(sorted.length * 0.9)]!;
    const report = {
      seconds: elapsedS,
      scrapes,
      polls,
      skipped,
      healthz: { probes: health.length, p50: sorted[Math.floor(sorted.length / 2)], p90, max: sorted.at(-1) },
      rssBeforeMB: Math.round(rssBefore / MB),
      rssMaxMB: Math.round(rssMax / MB),
      upAfter: valueOf(after.samples, 'upstash_up', labels),
    };
    console.log(`load report: ${JSON.stringify(report, null, 2)}`);

    // Polls kept their one-a-second schedule (a tick or two lost to a busy event loop at most).
    expect(polls).toBeGreaterThanOrEqual(Math.floor(elapsedS * 0.8));
    expect(report.upAfter).toBe(1);
    // /healthz was never starved: every probe answered, the slowest within 2 s (the scrapers and this
    // test share the process and the two cores with the exporter).
    expect(health.length).toBeGreaterThan(SECONDS * 2);
    expect(sorted.at(-1)!).toBeLessThan(2_000);
    // Memory stays bounded: 150 stuck readers cost at most their pending answers, not a leak per scrape.
    expect(rssMax - rssBefore).toBeLessThan(300 * MB);
  } finally {
    for (const socket of readers) socket.destroy();
    await h.stop();
  }
});
