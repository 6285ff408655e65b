import { describe, expect, test } from 'vitest';
import { DEMO_DLQ_CALLER_IP, DEMO_DLQ_SECRET, type Simulator } from '../../src/demo/simulator.js';
import { basic, bearer, getJson, simulatorsStoppedAfterEach } from './helpers.js';

const start = simulatorsStoppedAfterEach();
const T0 = Date.UTC(2025, 9, 14, 10, 0, 0);

interface Page {
  messages: Record<string, unknown>[];
  cursor?: string;
}

async function everyPage(sim: Simulator, path: string): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = await getJson<Page>(
      sim,
      `${path}?count=100${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      bearer(),
    );
    pages.push(page);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return pages;
}

describe('the simulated DLQs', () => {
  test('a few hundred messages in pages of 100, across queues, URL groups and status codes, each carrying the secret marker', async () => {
    const sim = await start({ frozen: true, now: () => T0 });
    const pages = await everyPage(sim, '/v2/dlq');
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.slice(0, -1).every((p) => p.messages.length === 100)).toBe(true);
    const messages = pages.flatMap((p) => p.messages);
    expect(messages.length).toBeGreaterThan(200);
    expect(new Set(messages.map((m) => m.queueName)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(messages.map((m) => m.topicName)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(messages.map((m) => m.responseStatus)).size).toBeGreaterThanOrEqual(4);
    for (const m of messages) {
      expect(JSON.stringify(m)).toContain(DEMO_DLQ_SECRET);
      expect(m.callerIP).toBe(DEMO_DLQ_CALLER_IP);
    }
    const runs = (await everyPage(sim, '/v2/workflows/dlq')).flatMap((p) => p.messages);
    expect(runs.length).toBeGreaterThan(200);
    expect(runs[0]).toHaveProperty('workflowRunId');
    expect(runs[0]).not.toHaveProperty('queueName');
  });

  test('frozen, a page is byte-identical; the routes want the bearer token', async () => {
    const sim = await start({ frozen: true, now: () => T0 });
    for (const path of ['/v2/dlq?count=100', '/v2/workflows/dlq?count=100']) {
      const a = await (await fetch(sim.url + path, { headers: bearer() })).text();
      expect(await (await fetch(sim.url + path, { headers: bearer() })).text()).toBe(a);
      expect((await fetch(sim.url + path, { headers: basic() })).status).toBe(401);
    }
  });

  test('the DLQ moves with the clock: the oldest messages leave, new ones arrive', async () => {
    let now = T0;
    const sim = await start({ now: () => now });
    const first = (await everyPage(sim, '/v2/dlq')).flatMap((p) => p.messages);
    now += 3_600_000;
    const later = (await everyPage(sim, '/v2/dlq')).flatMap((p) => p.messages);
    expect(later[0]!.createdAt).toBeGreaterThan(first[0]!.createdAt as number);
    expect(later.at(-1)!.createdAt).toBeGreaterThan(first.at(-1)!.createdAt as number);
  });
});
