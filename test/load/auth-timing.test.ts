import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { expect, test } from 'vitest';
import { useHarness, type Harness } from '../helpers/harness.js';

// Timing, so in the slow suite rather than with the rest of basic auth (test/server/web-security):
// an unknown user must not answer faster than a known one, or the time would tell which users exist.

const PASSWORD = 'scrape-pw-Zq81SECRETx';

const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

const exporter = useHarness({ intervalSeconds: 30 });

async function start(webConfig: string): Promise<{ h: Harness }> {
  const file = join(mkdtempSync(join(tmpdir(), 'upstash-exporter-web-')), 'web-config.yml');
  writeFileSync(file, webConfig);
  return { h: await exporter({ webConfigFile: file }) };
}

test('an unknown user costs a bcrypt check like a known one (no enumeration by timing)', async () => {
  const { h } = await start(`basic_auth_users:\n  prometheus: ${bcrypt.hashSync(PASSWORD, 8)}\n`);
  // Interleaved, so that whatever else the machine does weighs on both alike.
  const knownTimes: number[] = [];
  const unknownTimes: number[] = [];
  for (let i = 0; i < 7; i++) {
    knownTimes.push((await h.get('/metrics', basic('prometheus', 'wrong'))).ms);
    unknownTimes.push((await h.get('/metrics', basic('nobody', 'wrong'))).ms);
  }
  const median = (times: number[]): number => times.sort((a, b) => a - b)[3]!;
  const known = median(knownTimes);
  const unknown = median(unknownTimes);
  // Cost 8 is ~20 ms of bcrypt; skipping it for unknown users would make them several times faster.
  expect(unknown).toBeGreaterThan(known / 3);
  expect(known).toBeGreaterThan(5);
});
