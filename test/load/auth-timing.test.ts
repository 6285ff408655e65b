import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { expect, test } from 'vitest';
import { useHarness, type Harness } from '../helpers/harness.js';

// Timing, so in the slow suite rather than with the rest of basic auth (test/server/web-security):
// an unknown user must not answer faster than a known one, or the time would tell which users exist.
// The clockless proof (one check at the configured cost either way) is in `npm test`:
// test/server/auth-enumeration.test.ts. This one bounds what is left, end to end, on a quiet machine.

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
  // Cost 10 (~80 ms of bcrypt): large beside the rest of a request, so that the gap left is bcrypt's.
  const { h } = await start(`basic_auth_users:\n  prometheus: ${bcrypt.hashSync(PASSWORD, 10)}\n`);
  // Interleaved, so that whatever else the machine does weighs on both alike.
  const knownTimes: number[] = [];
  const unknownTimes: number[] = [];
  for (let i = 0; i < 9; i++) {
    knownTimes.push((await h.get('/metrics', basic('prometheus', 'wrong'))).ms);
    unknownTimes.push((await h.get('/metrics', basic('nobody', 'wrong'))).ms);
  }
  const median = (times: number[]): number => times.sort((a, b) => a - b)[4]!;
  const known = median(knownTimes);
  const unknown = median(unknownTimes);
  // Skipping bcrypt for unknown users would make them some ten times faster. Within 2x either way:
  // on two cores at load average 27 the medians were 1.7 s and 2.6 s apart by 1.5x, all of it
  // scheduling; the tight bound, one check at one cost, is test/server/auth-enumeration.test.ts.
  expect(unknown).toBeGreaterThan(known / 2);
  expect(unknown).toBeLessThan(known * 2);
  expect(known).toBeGreaterThan(20);
});
