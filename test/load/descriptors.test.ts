import { connect, type Socket } from 'node:net';
import { expect, test } from 'vitest';
import { openFds, sleep, startTarget, timedGet, type Outcome } from './hostile-clients.js';

// More idle or slowloris connections than the exporter has file descriptors
// (`ulimit -n 1024`) made /metrics unreachable for 30 s, with nothing in the log. Connections must be
// capped below the descriptor limit, the least recently active idle ones closed to make room for new
// ones, and the condition logged.

const FD_LIMIT = 1024;
const CONNECTIONS = 1100;
/** Of every 11 connections, 4 are slowloris (400 in all), the rest idle. */
const isSlow = (i: number): boolean => i % 11 < 4;

test(`${CONNECTIONS} idle and slowloris connections under ulimit -n ${FD_LIMIT}: scrapes get through, and the log says so`, async () => {
  const target = await startTarget({ fdLimit: FD_LIMIT });
  const attackers: Socket[] = [];
  const slow: Socket[] = [];
  // Headers started and never finished, one more header line now and then.
  const trickle = setInterval(() => {
    for (const socket of slow) if (socket.writable) socket.write('x-pad: 1\r\n');
  }, 1_000);
  try {
    for (let i = 0; i < CONNECTIONS; i++) {
      const socket = connect(target.port, '127.0.0.1', () => {
        if (isSlow(i)) {
          socket.write('GET /metrics HTTP/1.1\r\nHost: exporter\r\n');
          slow.push(socket);
        }
      });
      socket.on('error', () => undefined);
      attackers.push(socket);
      if (i % 100 === 99) await sleep(10);
    }
    await sleep(500);
    const fdsDuring = openFds(target.pid);

    const scrapes: Outcome[] = [];
    for (let i = 0; i < 10; i++) {
      scrapes.push(await timedGet(target.port, '/metrics', {}, 2_000));
      await sleep(200);
    }
    const report = {
      fdsDuring,
      scrapes: scrapes.map((s) => (s.status === 200 ? s.ms : `${s.status}:${s.error ?? ''}`)),
    };
    console.log(`descriptors report: ${JSON.stringify(report)}`);

    expect(fdsDuring).toBeLessThan(FD_LIMIT);
    expect(scrapes.every((s) => s.status === 200)).toBe(true);
    expect(target.log()).toContain('connection limit reached');
  } finally {
    clearInterval(trickle);
    for (const socket of attackers) socket.destroy();
    await target.stop();
  }
});
