import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_QSTASH_TOKEN, startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { databaseWarnings } from '../../src/sources/databases.js';
import { dlq } from '../../src/sources/dlq.js';
import { EventStore } from '../../src/sources/event-store.js';
import { scheduleWarnings } from '../../src/sources/schedules.js';
import { someIds } from '../../src/sources/source.js';
import { UpstashClient } from '../../src/upstash/client.js';
import type { Database } from '../../src/upstash/databases.js';
import type { Schedule } from '../../src/upstash/schedules.js';
import { DEFAULTS } from '../../src/config/types.js';
import type { Limits } from '../../src/vocabulary.js';

// What the sources say of their data for the landing page (PollResult.warnings, .watched): fixed
// texts, IDs at most, never an upstream value that could carry a secret.

const schedule = (id: string, lastRunFailed: boolean): Schedule => ({ id, cron: '* * * * *', lastRunFailed });
const database = (id: string, state: string) => ({ id, state }) as Database;

describe('warnings', () => {
  it('names the failing schedules by ID, sorted, three at most, and a cap that cut', () => {
    expect(scheduleWarnings([schedule('s1', false)], 10)).toEqual([]);
    expect(
      scheduleWarnings(
        ['s5', 's3', 's4', 's1', 's2'].map((id) => schedule(id, id !== 's2')),
        3,
      ),
    ).toEqual([
      '4 schedules failing (last run failed): s1, s3, s4 and 1 more',
      '2 schedules not exported (max_schedules 3)',
    ]);
  });

  it('names the suspended databases by ID', () => {
    expect(databaseWarnings([database('a', 'active'), database('b', 'suspended')])).toEqual([
      '1 database suspended: b',
    ]);
    expect(databaseWarnings([database('a', 'active')])).toEqual([]);
  });

  it('cuts an ID of any length', () => {
    expect(someIds(['x'.repeat(1000)])).toBe(`${'x'.repeat(39)}…`);
  });
});

describe('the DLQ source', () => {
  let sim: Simulator | undefined;
  let client: UpstashClient | undefined;
  afterEach(async () => {
    await client?.close();
    await sim?.stop();
  });

  const limits = (maxDlqPages: number): Limits => ({ ...DEFAULTS.limits, maxDlqPages });

  it('watches its count when the scan is complete, and says when it stopped at max_dlq_pages', async () => {
    sim = await startSimulator({ frozen: true });
    sim.setDlq('dlq', { messages: 250 });
    client = new UpstashClient({
      timeoutMs: 5000,
      retries: 0,
      concurrency: 1,
      userAgent: 'test',
      random: () => 0,
    });
    const poll = async (pages: number) =>
      dlq.poll({
        client: client!,
        account: {
          name: 'eu',
          baseUrl: sim?.url ?? '',
          credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } },
        },
        unit: '',
        limits: limits(pages),
        signal: new AbortController().signal,
        deadline: Date.now() + 60_000,
        events: new EventStore().of('eu'),
      });
    const complete = await poll(10);
    expect(complete.watched).toEqual({ 'dead-letter messages': 250 });
    expect(complete.warnings).toBeUndefined();
    const cut = await poll(2);
    expect(cut.watched).toBeUndefined();
    expect(cut.warnings).toEqual([
      'scan stopped at max_dlq_pages (2 pages, 200 dead-letter messages read): the counts are lower bounds',
    ]);
  });
});
