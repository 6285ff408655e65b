import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
} from '../../src/demo/simulator.js';
import { MAIN, startExporter, waitForStatus, writeConfig } from '../helpers/exporter-process.js';

// test/worker/serving-modules.test.ts reads the serving thread's imports in the source; this watches
// the built program run: every source polled, a scrape served and a reload applied, and still no
// source, simulator or Upstash client compiled on the thread that serves HTTP (they cost its heap
// 6-10 MB: BENCHMARKS.md, "Memory on a quiet machine"), though it reads the table of sources.
const PRELOAD = fileURLToPath(new URL('../helpers/main-thread-scripts.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

describe('the serving thread of the built program', () => {
  let sim: Simulator;
  let scripts: string[];

  beforeAll(async () => {
    sim = await startSimulator();
    const config = writeConfig(`
qstash:
  - name: eu
    url: ${sim.url}
    token: ${DEMO_QSTASH_TOKEN}
management:
  - name: main
    url: ${sim.url}
    email: ${DEMO_EMAIL}
    api_key: ${DEMO_API_KEY}
`);
    const out = join(mkdtempSync(join(tmpdir(), 'upstash-exporter-')), 'scripts.txt');
    const exporter = await startExporter(
      ['--config', config, '--web.enable-lifecycle'],
      { MAIN_THREAD_SCRIPTS: out },
      [process.execPath, '--import', PRELOAD, MAIN],
    );
    try {
      await waitForStatus(`${exporter.url}/readyz`, 200);
      expect((await fetch(`${exporter.url}/metrics`)).status).toBe(200);
      expect((await fetch(`${exporter.url}/-/reload`, { method: 'POST' })).status).toBe(200);
    } finally {
      expect(await exporter.stop()).toBe(0);
    }
    scripts = readFileSync(out, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'))
      .map((url) => fileURLToPath(url));
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('compiled the server, the poll thread and the table of sources', () => {
    // The watch itself works: what the serving thread must run is there, and the worker's own entry is not.
    const ours = scripts.filter((file) => file.startsWith(DIST)).map((file) => file.slice(DIST.length));
    expect(ours).toEqual(
      expect.arrayContaining([
        'main.js',
        'app.js',
        'worker/thread.js',
        'source-registry.js',
        'vocabulary.js',
      ]),
    );
    expect(ours).not.toContain('worker/worker-main.js');
  });

  it('compiled no source, no simulator module, no Upstash client and no undici', () => {
    const ours = scripts.filter((file) => file.startsWith(DIST)).map((file) => file.slice(DIST.length));
    expect(ours.filter((file) => /^(sources|demo)\/|^upstash\/client\.js$/.test(file))).toEqual([]);
    expect(scripts.filter((file) => file.includes('/node_modules/undici/'))).toEqual([]);
  });
});
