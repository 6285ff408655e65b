import bcrypt from 'bcryptjs';
import { describe, expect, test } from 'vitest';
import { BasicAuth } from '../../src/server/basic-auth.js';
import { BcryptWorker, MAX_PENDING_CHECKS } from '../../src/server/bcrypt-worker.js';

// The timing half of test/server/bcrypt-worker.test.ts: at a real cost, a flood of wrong passwords
// neither holds the event loop nor delays a verified credential.

const header = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

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
  });
});
