import bcrypt from 'bcryptjs';
import { describe, expect, test } from 'vitest';
import { BasicAuth } from '../../src/server/basic-auth.js';
import { BcryptWorker, MAX_PENDING_CHECKS } from '../../src/server/bcrypt-worker.js';

const header = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('BcryptWorker', () => {
  test('compares against the $2a$, $2b$ and $2y$ hashes of Go, bcryptjs and htpasswd', async () => {
    const worker = new BcryptWorker();
    const hash = bcrypt.hashSync('right', 4);
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      const variant = `${prefix}${hash.slice(4)}`;
      expect(await worker.compare('right', variant), prefix).toBe(true);
      expect(await worker.compare('wrong', variant), prefix).toBe(false);
    }
    const made = await worker.hash('another', 5);
    expect(bcrypt.getRounds(made)).toBe(5);
    expect(bcrypt.compareSync('another', made)).toBe(true);
  });

  test(`turns checks away beyond ${MAX_PENDING_CHECKS} pending instead of queuing them`, async () => {
    const worker = new BcryptWorker();
    const hash = bcrypt.hashSync('right', 4);
    const results = await Promise.all(
      Array.from({ length: MAX_PENDING_CHECKS + 4 }, async () => worker.compare('wrong', hash)),
    );
    expect(results.filter((r) => r === false)).toHaveLength(MAX_PENDING_CHECKS);
    expect(results.filter((r) => r === 'busy')).toHaveLength(4);
    // Once they are done, there is room again.
    expect(await worker.compare('right', hash)).toBe(true);
  });
});

describe('BasicAuth under a flood of wrong passwords', () => {
  // Cost 4: what bcrypt costs is not the subject here, and the worker thread runs at the lowest
  // priority, so on a busy machine each check at cost 10 can take seconds. How long the event loop
  // is held and how fast the verified credential answers are timing: test/load/bcrypt-flood.test.ts.
  test('a verified credential answers before bcrypt has decided any of the flood; the flood is bounded', async () => {
    const hash = bcrypt.hashSync('right', 4);
    const auth = new BasicAuth(new Map([['prometheus', hash]]), new BcryptWorker());
    expect(await auth.check(header('prometheus', 'right'))).toBe('ok');
    const decided: string[] = [];
    const flood = Array.from({ length: MAX_PENDING_CHECKS + 2 }, async (_, i) => {
      const result = await auth.check(header(i % 2 === 0 ? 'prometheus' : `nobody-${i}`, `guess-${i}`));
      decided.push(result);
      return result;
    });
    expect(await auth.check(header('prometheus', 'right'))).toBe('ok');
    // Only the turned-away checks are in: a bcrypt answer comes from the worker, after this.
    expect(decided.filter((r) => r !== 'busy')).toEqual([]);
    const results = await Promise.all(flood);
    expect(results.filter((r) => r === 'denied')).toHaveLength(MAX_PENDING_CHECKS);
    expect(results.filter((r) => r === 'busy')).toHaveLength(2);
  });
});
