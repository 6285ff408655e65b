import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_QSTASH_TOKEN, startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { startExporter, waitForStatus, writeConfig } from '../helpers/exporter-process.js';

// The program applies its own V8 heap settings (src/main.ts), so that `npm start`, the bin
// and the image hold a large account in little memory without anyone passing Node flags. The young
// generation is what they cap: after ingesting 10,000 flow-control keys it would otherwise have grown
// to 16 or 32 MB. (That a user's own flag on the same setting wins is test/heap-flags.test.ts's.)

const KEYS = 10_000;
let simulator: Simulator;
let config: string;

beforeAll(async () => {
  simulator = await startSimulator({ flowControlKeys: KEYS, urlGroups: 5, frozen: true });
  config = writeConfig(`
limits:
  max_flow_control_keys: ${KEYS}
qstash:
  - name: big
    url: ${simulator.url}
    token: ${DEMO_QSTASH_TOKEN}
    interval: 1h
`);
});

afterAll(async () => {
  await simulator.stop();
});

/** The young generation's size once the exporter ingested every key, and whether it exported them. */
async function youngGeneration(): Promise<{ bytes: number; keys: number }> {
  const exporter = await startExporter(['--config', config]);
  try {
    await waitForStatus(`${exporter.url}/readyz`, 200);
    const text = await (await fetch(`${exporter.url}/metrics`)).text();
    const bytes = Number(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)$/m.exec(text)?.[1]);
    const keys = text.match(/^upstash_qstash_flow_control_wait_list_size\{/gm)?.length ?? 0;
    return { bytes, keys };
  } finally {
    await exporter.stop();
  }
}

describe('heap settings the program applies itself', () => {
  it('keeps the young generation at its initial 2 MiB through a 10,000-key poll', async () => {
    const { bytes, keys } = await youngGeneration();
    expect(keys).toBe(KEYS);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});
