import bcrypt from 'bcryptjs';
import { expect, test } from 'vitest';
import { BasicAuth } from '../../src/server/basic-auth.js';
import { BcryptWorker } from '../../src/server/bcrypt-worker.js';

// No user enumeration by timing (docs/security.md, Securing /metrics): a wrong password costs one
// bcrypt check at the configured cost whether or not the user exists. bcrypt's cost is its work
// factor, the same for any hash of one cost, so counting the checks and reading their costs bounds
// the gap with no clock; the wall-clock check, on a quiet machine, is in the slow suite
// (test/load/auth-timing.test.ts).

/** The real worker, which also notes the hash of every check it is asked for. */
class CountingBcrypt extends BcryptWorker {
  readonly compared: string[] = [];

  override async compare(password: string, hash: string): Promise<boolean | 'busy'> {
    this.compared.push(hash);
    return super.compare(password, hash);
  }
}

const header = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

test('an unknown user costs one bcrypt check at the configured cost, as a known one does', async () => {
  for (const cost of [4, 6]) {
    const hash = bcrypt.hashSync('right', cost);
    const worker = new CountingBcrypt();
    const auth = new BasicAuth(new Map([['prometheus', hash]]), worker);
    expect(await auth.check(header('prometheus', 'wrong'))).toBe('denied');
    expect(worker.compared).toEqual([hash]);
    expect(await auth.check(header('nobody', 'wrong'))).toBe('denied');
    expect(await auth.check(header('nobody-else', 'right'))).toBe('denied');
    expect(worker.compared).toHaveLength(3);
    // Against a real hash of the same cost (not an empty or malformed one, which bcrypt refuses at
    // once), of a password nobody sends.
    for (const dummy of worker.compared.slice(1)) {
      expect(dummy).not.toBe(hash);
      expect(dummy).toMatch(/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/);
      expect(bcrypt.getRounds(dummy)).toBe(cost);
    }
  }
});
