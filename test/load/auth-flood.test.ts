import bcrypt from 'bcryptjs';
import { expect, test } from 'vitest';
import { quantile, sleep, startTarget, timedGet } from './hostile-clients.js';

// Attackers sending wrong passwords must not slow down a scraper whose credentials
// were already verified. bcrypt at a real cost (10, as `htpasswd -nBC 10` makes) is ~70-100 ms of CPU
// per check in bcryptjs; on the event loop, 8 of them at a time made a verified scraper wait 2-5 s.

const ATTACKERS = 16;
const ATTACK_MS = 10_000;

const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

test(`a verified scraper's p99 stays under 200 ms while ${ATTACKERS} attackers send wrong passwords`, async () => {
  const hash = bcrypt.hashSync('scrape-pw-right', 10);
  const target = await startTarget({ webConfig: `basic_auth_users:\n  prometheus: ${hash}\n` });
  try {
    const good = basic('prometheus', 'scrape-pw-right');
    expect((await timedGet(target.port, '/metrics', good)).status).toBe(200);

    const end = Date.now() + ATTACK_MS;
    const answers: Record<number, number> = {};
    const attackers = Array.from({ length: ATTACKERS }, async (_, i) => {
      // Half guess passwords of the real user, half of users that do not exist.
      const bad = basic(i % 2 === 0 ? 'prometheus' : `nobody-${i}`, `guess-${i}`);
      while (Date.now() < end) {
        const reply = await timedGet(target.port, '/metrics', bad, 30_000);
        answers[reply.status] = (answers[reply.status] ?? 0) + 1;
        // A well-behaved flood honours Retry-After a little; a hostile one would not wait at all.
        if (reply.status === 429) await sleep(20);
      }
    });
    await sleep(500);
    const latencies: number[] = [];
    while (Date.now() < end - 500) {
      const reply = await timedGet(target.port, '/metrics', good, 30_000);
      latencies.push(reply.status === 200 ? reply.ms : Infinity);
      await sleep(50);
    }
    await Promise.all(attackers);

    const report = {
      attackers: ATTACKERS,
      scrapes: latencies.length,
      p50: quantile(latencies, 0.5),
      p90: quantile(latencies, 0.9),
      p99: quantile(latencies, 0.99),
      max: Math.max(...latencies),
      attackerAnswers: answers,
    };
    console.log(`auth flood report: ${JSON.stringify(report)}`);

    expect(latencies.length).toBeGreaterThan(50);
    expect(report.p99).toBeLessThan(200);
    // Attackers were refused, and bcrypt kept running for them (they were not all turned away).
    expect(Object.keys(answers).sort()).toEqual(expect.arrayContaining(['401']));
    expect(answers[200]).toBeUndefined();
    expect(answers[0]).toBeUndefined();
  } finally {
    await target.stop();
  }
});
