import { afterEach, describe, expect, test } from 'vitest';
import { DEMO_QSTASH_TOKEN, startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { MAX_BURST_WAIT_MS, UpstashClient, type Api } from '../../src/upstash/client.js';
import { fetchDlq } from '../../src/upstash/dlq.js';

// The burst limit against the simulator over real HTTP: a page answered with
// `Burst-RateLimit-Remaining: 0` makes the credential's next request wait for `Burst-RateLimit-Reset`
// (Unix seconds), at most a second, and the wait is reported. The waits are real (the client sleeps on
// the wall clock); the margins below are the subject: the next page never comes before its time.

const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.stop()));
});

/** Two pages of the DLQ read back to back, the first answered with these burst headers. */
async function twoPages(remaining: number, resetIn: number) {
  const arrivals: number[] = [];
  const sim = await startSimulator({
    frozen: true,
    onRequest: (route) => {
      if (route === 'dlq') arrivals.push(Date.now());
    },
  });
  running.push(sim);
  sim.setDlq('dlq', { messages: 150 });
  sim.setFault('dlq', { kind: 'burst', remaining, resetIn, times: 1 });
  const waits: Api[] = [];
  const client = new UpstashClient({
    timeoutMs: 5000,
    retries: 0,
    concurrency: 2,
    userAgent: 'test',
    onBurstWait: (api) => waits.push(api),
  });
  const credentials = { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } } as const;
  let read = 0;
  const scan = await fetchDlq(client, 'dlq', { baseUrl: sim.url, credentials, maxPages: 10 }, (page) => {
    read += page.length;
  });
  expect(read).toBe(150);
  expect(scan).toMatchObject({ complete: true, pages: 2 });
  expect(arrivals).toHaveLength(2);
  const [first = 0, second = 0] = arrivals;
  return { first, second, waits };
}

/** Timers may fire a millisecond or two early against Date.now; the sockets add no wait. */
const EARLY = 5;

describe('the burst limit', () => {
  test('Remaining 0: the next page waits until Reset, and the wait is counted', async () => {
    const { first, second, waits } = await twoPages(0, 400);
    // Reset is the whole second after first + 400 ms (the simulator rounds up): at most 1.4 s ahead,
    // so the wait is Reset's time or a second, whichever comes first.
    const reset = Math.ceil((first + 400) / 1000) * 1000;
    const due = Math.min(reset, first + MAX_BURST_WAIT_MS);
    expect(second).toBeGreaterThanOrEqual(due - EARLY);
    expect(second - first).toBeLessThan(MAX_BURST_WAIT_MS + 500);
    expect(waits).toEqual(['qstash']);
  });

  test('a Reset an hour ahead waits a second at most', async () => {
    const { first, second, waits } = await twoPages(0, 3_600_000);
    expect(second - first).toBeGreaterThanOrEqual(MAX_BURST_WAIT_MS - EARLY);
    expect(second - first).toBeLessThan(MAX_BURST_WAIT_MS + 500);
    expect(waits).toEqual(['qstash']);
  });

  test('requests left: no wait, nothing counted', async () => {
    const { first, second, waits } = await twoPages(5, 3_600_000);
    expect(second - first).toBeLessThan(500);
    expect(waits).toEqual([]);
  });
});
