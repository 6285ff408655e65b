import { afterEach, describe, expect, test } from 'vitest';
import { DEMO_ODD_FLOW_CONTROL_KEY, DEMO_QSTASH_TOKEN, startSimulator } from '../../src/demo/simulator.js';
import type { Simulator, SimulatorOptions } from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { InvalidResponseError } from '../../src/upstash/errors.js';
import { fetchFlowControl, parseFlowControl } from '../../src/upstash/flow-control.js';
import { invalidAsync } from '../helpers/invalid.js';

// A response as QStash documents it, with the extra per-key fields the real API sends.
const DOCUMENTED = `{
  "flowControls": [
    {"flowControlKey": "user-signup", "waitListSize": 12, "parallelismMax": 5, "parallelismCount": 5, "rateMax": 100, "ratePeriod": 60},
    {"flowControlKey": "email/digest", "waitListSize": 0, "parallelismMax": 1, "parallelismCount": 0},
    {"flowControlKey": "tenant \\"café\\" \\\\ eu\\nbatch", "waitListSize": 3}
  ]
}`;

describe('parseFlowControl', () => {
  // Upstash omits zero values: a missing isPaused is false and a missing count 0, from the parser on.
  test('the documented object body', async () => {
    expect((await parseFlowControl(JSON.parse(DOCUMENTED))).entries).toEqual([
      {
        key: 'user-signup',
        waitListSize: 12,
        paused: false,
        parallelismMax: 5,
        parallelismCount: 5,
        rateMax: 100,
        rateCount: 0,
        ratePeriod: 60,
      },
      {
        key: 'email/digest',
        waitListSize: 0,
        paused: false,
        parallelismMax: 1,
        parallelismCount: 0,
        rateCount: 0,
      },
      {
        key: 'tenant "café" \\ eu\nbatch',
        waitListSize: 3,
        paused: false,
        parallelismCount: 0,
        rateCount: 0,
      },
    ]);
  });

  test('a bare array of the same entries', async () => {
    const entries = (JSON.parse(DOCUMENTED) as { flowControls: unknown[] }).flowControls;
    expect(await parseFlowControl(entries)).toEqual(await parseFlowControl(JSON.parse(DOCUMENTED)));
  });

  test('empty lists in both shapes', async () => {
    expect(await parseFlowControl({ flowControls: [] })).toEqual({ entries: [], rejected: [] });
    expect(await parseFlowControl([])).toEqual({ entries: [], rejected: [] });
  });

  test('extra fields on entries and on the body are ignored, not copied', async () => {
    const { entries: parsed } = await parseFlowControl({
      flowControls: [{ flowControlKey: 'k', waitListSize: 1, somethingNew: { nested: true } }],
      cursor: 'abc',
    });
    expect(parsed).toEqual([{ key: 'k', waitListSize: 1, paused: false, parallelismCount: 0, rateCount: 0 }]);
    expect(Object.keys(parsed[0]!)).toEqual([
      'key',
      'waitListSize',
      'paused',
      'parallelismCount',
      'rateCount',
    ]);
  });

  test.each([
    ['missing waitListSize', { flowControls: [{ flowControlKey: 'k' }] }, 'waitListSize'],
    ['missing flowControlKey', { flowControls: [{ waitListSize: 2 }] }, 'flowControlKey'],
    ['numeric key', { flowControls: [{ flowControlKey: 7, waitListSize: 2 }] }, 'flowControlKey'],
    ['null size', { flowControls: [{ flowControlKey: 'k', waitListSize: null }] }, 'waitListSize'],
    ['bare array, missing size', [{ flowControlKey: 'k' }], 'waitListSize'],
    [
      'bare array, second entry bad',
      [{ flowControlKey: 'a', waitListSize: 1 }, { flowControlKey: 'b' }],
      'waitListSize',
    ],
    ['an empty key', { flowControls: [{ flowControlKey: '', waitListSize: 2 }] }, 'flowControlKey'],
    [
      'the same key twice',
      {
        flowControls: [
          { flowControlKey: 'k', waitListSize: 1 },
          { flowControlKey: 'k', waitListSize: 2 },
        ],
      },
      'flowControlKey',
    ],
  ])('%s → invalid_response naming the field', async (_, body, field) => {
    const error = await invalidAsync(() =>
      parseFlowControl(body, 'https://qstash.example.com/v2/flowControl/'),
    );
    expect(error.message).toContain(field);
    expect(error.message).toContain('GET https://qstash.example.com/v2/flowControl/');
  });

  test('the message names the field, never its value', async () => {
    const value = 'tok_3b9f1e2d-looks-like-a-secret';
    const error = await invalidAsync(() =>
      parseFlowControl({ flowControls: [{ flowControlKey: 'k', waitListSize: value }] }),
    );
    expect(error.message).toContain('waitListSize');
    expect(error.message).not.toContain(value);
  });

  test('the optional figures of 6.4: kept only when sent; waitlistSize read where waitListSize is absent', async () => {
    const { entries: parsed } = await parseFlowControl([
      { flowControlKey: 'lower', waitlistSize: 4, isPaused: true, rateMax: 10, rateCount: 3, ratePeriod: 60 },
      { flowControlKey: 'both', waitListSize: 5, waitlistSize: 9 },
      { flowControlKey: 'bare', waitListSize: 0, isPinnedRate: true, ratePeriodStart: 1_700_000_000 },
    ]);
    expect(parsed).toEqual([
      {
        key: 'lower',
        waitListSize: 4,
        paused: true,
        parallelismCount: 0,
        rateMax: 10,
        rateCount: 3,
        ratePeriod: 60,
      },
      { key: 'both', waitListSize: 5, paused: false, parallelismCount: 0, rateCount: 0 },
      { key: 'bare', waitListSize: 0, paused: false, parallelismCount: 0, rateCount: 0 },
    ]);
  });

  // Only the key field (and the wait list size) is all-or-nothing; see tolerance.test.ts.
  test.each([
    ['isPaused a string', { isPaused: 'yes' }, 'isPaused', { parallelismCount: 0, rateCount: 0 }],
    [
      'parallelismMax a string',
      { parallelismMax: '5' },
      'parallelismMax',
      { paused: false, parallelismCount: 0, rateCount: 0 },
    ],
  ])('%s: the field is left out alone and named, the key kept', async (_, bad, field, rest) => {
    expect(await parseFlowControl([{ flowControlKey: 'k', waitListSize: 1, ...bad }])).toEqual({
      entries: [{ key: 'k', waitListSize: 1, ...rest }],
      rejected: [field],
    });
  });

  test('waitlistSize null, no waitListSize → invalid_response naming the field', async () => {
    const entry = { flowControlKey: 'k', waitlistSize: null };
    expect((await invalidAsync(() => parseFlowControl([entry]))).message).toContain('waitlistSize');
  });

  test('a body of many bad entries costs one problem: validation stops at the first', async () => {
    const bad = Array.from({ length: 50_000 }, () => ({ flowControlKey: 7 }));
    const error = await invalidAsync(() => parseFlowControl({ flowControls: bad }));
    expect(error.message).toContain('flowControls[0].flowControlKey');
    // One entry's problems at most, not one per bad entry.
    expect(error.message).not.toMatch(/and \d{2,} more/);
  });

  test.each([
    ['null', null],
    ['a string', 'flowControls'],
    ['a number', 42],
    ['an object without the list', { items: [] }],
    ['a list that is not an array', { flowControls: { k: 1 } }],
  ])('%s is not a flow-control body', async (_, body) => {
    await invalidAsync(() => parseFlowControl(body));
  });

  test('the message says which shape was wanted, and where a bad entry is in either', async () => {
    const says = async (body: unknown): Promise<string> =>
      (await invalidAsync(() => parseFlowControl(body, 'flowControl'))).message;
    expect(await says(42)).toContain(
      'wrong shape at top level: expected an object with flowControls, or an array',
    );
    expect(await says({ flowControls: 1 })).toContain('wrong shape at flowControls: expected an array');
    expect(await says([{ flowControlKey: 'k', waitListSize: 1 }, { flowControlKey: 2 }])).toContain(
      'wrong shape at [1].flowControlKey: ',
    );
    expect(await says({ flowControls: [{ flowControlKey: 2 }] })).toContain(
      'wrong shape at flowControls[0].flowControlKey: ',
    );
  });
});

describe('fetchFlowControl against the simulator', () => {
  const running: Simulator[] = [];
  const clients: UpstashClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(running.splice(0).map((s) => s.stop()));
  });

  async function setUp(options?: SimulatorOptions): Promise<{ sim: Simulator; client: UpstashClient }> {
    const sim = await startSimulator({ frozen: true, ...options });
    running.push(sim);
    const client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 2, userAgent: 'test' });
    clients.push(client);
    return { sim, client };
  }

  const target = (sim: Simulator) => ({
    baseUrl: sim.url,
    credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } } as const,
  });

  test.each(['object', 'array'] as const)('the %s shape yields every generated key', async (shape) => {
    const { sim, client } = await setUp({ flowControlShape: shape });
    const { entries: keys } = await fetchFlowControl(client, target(sim));
    expect(keys).toHaveLength(6);
    expect(keys.map((k) => k.key)).toContain(DEMO_ODD_FLOW_CONTROL_KEY);
    for (const k of keys) expect(Number.isInteger(k.waitListSize)).toBe(true);
    expect(sim.lastPath('flow_control')).toBe('/v2/flowControl/');
    expect(sim.lastHeaders('flow_control')?.authorization).toBe(`Bearer ${DEMO_QSTASH_TOKEN}`);
  });

  test('entries set on the simulator come back as they were', async () => {
    const { sim, client } = await setUp();
    sim.setFlowControl([
      { flowControlKey: 'a', waitListSize: 1, parallelismMax: 3 },
      { flowControlKey: 'b', waitListSize: 99 },
    ]);
    expect((await fetchFlowControl(client, target(sim))).entries).toEqual([
      { key: 'a', waitListSize: 1, paused: false, parallelismMax: 3, parallelismCount: 0, rateCount: 0 },
      { key: 'b', waitListSize: 99, paused: false, parallelismCount: 0, rateCount: 0 },
    ]);
  });

  test('a changed API (entry without size) is invalid_response naming the URL', async () => {
    const { sim, client } = await setUp();
    sim.setFault('flow_control', {
      kind: 'body',
      body: '{"flowControls":[{"flowControlKey":"k","size":3}]}',
    });
    const error = await fetchFlowControl(client, target(sim)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain(`${sim.url}/v2/flowControl/`);
    expect((error as Error).message).toContain('waitListSize');
  });
});
