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
    const hash = bcrypt.hashSync('right', 6);
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
  test('bcrypt at cost 10 does not hold the event loop; verified credentials answer at once', async () => {
    const hash = bcrypt.hashSync('right', 10);
    const auth = new BasicAuth(new Map([['prometheus', hash]]), new BcryptWorker());
    expect(await auth.check(header('prometheus', 'right'))).toBe('ok');
    // What one check costs on this machine now: on the event loop, each would hold it that long.
    const before = performance.now();
    bcrypt.compareSync('wrong', hash);
    const oneCheck = performance.now() - before;

    let lag = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      lag = Math.max(lag, now - last - 5);
      last = now;
    }, 5);
    try {
      const flood = Array.from({ length: MAX_PENDING_CHECKS + 2 }, async (_, i) =>
        auth.check(header(i % 2 === 0 ? 'prometheus' : `nobody-${i}`, `guess-${i}`)),
      );
      const started = performance.now();
      expect(await auth.check(header('prometheus', 'right'))).toBe('ok');
      expect(performance.now() - started).toBeLessThan(Math.max(20, oneCheck / 2));
      const results = await Promise.all(flood);
      expect(results.filter((r) => r === 'denied')).toHaveLength(MAX_PENDING_CHECKS);
      expect(results.filter((r) => r === 'busy')).toHaveLength(2);
    } finally {
      clearInterval(timer);
    }
    // Eight checks ran meanwhile; on the event loop each would have held it a whole check long.
    expect(lag).toBeLessThan(Math.max(50, oneCheck / 2));
  }, 20_000);
});
