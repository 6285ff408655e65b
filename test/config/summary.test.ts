import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { summarizeConfig } from '../../src/config/summary.js';

// `--check-config` says what qstash_deliveries costs where an entry lists it (docs/configuration.md,
// What each source costs): a request per 100 deliveries read, the settle window re-read, at most
// max_event_pages a poll, and the seconds the cap leaves unread.

const CONFIG = '/etc/upstash-exporter/config.yml';
/** The cost line, apart from the entry's own line (which names the source and its interval too). */
const COST = /^qstash \w+: qstash_deliveries every /;

function summary(yaml: string): string[] {
  const config = loadConfig({ configFile: CONFIG, env: {}, readFile: () => yaml });
  return summarizeConfig(config).trimEnd().split('\n');
}

const entry = (name: string, sources: string, more = '') => `
  - name: ${name}
    url: https://qstash.example.com
    token: t-${name}
    events_interval: 60s
    sources: [${sources}]${more}`;

describe('--check-config: the cost of qstash_deliveries', () => {
  test('at 1k, 100k and 1M deliveries a day, for the entry that lists it only', () => {
    const lines = summary(`
qstash:${entry('busy', 'qstash_logs, qstash_deliveries')}${entry('quiet', 'qstash_logs')}
`);
    expect(lines.filter((l) => COST.test(l))).toEqual([
      'qstash busy: qstash_deliveries every 60s reads 90s of deliveries (event_settle 30s), 100 a request, ' +
        'at most max_event_pages 10: 1k/day: 1 request a poll, 1440 requests/day; 100k/day: 2 requests a ' +
        'poll, 2880 requests/day; 1M/day: 10 requests a poll (the cap), 14400 requests/day',
    ]);
  });

  test('says the seconds a day the page cap leaves unread', () => {
    const lines = summary(`
limits:
  max_event_pages: 2
qstash:${entry('busy', 'qstash_deliveries')}
`);
    // 1M a day is 11.6 a second: 2 pages hold 17.3 s of a 60 s interval, 42.7 s a poll unread.
    expect(lines.find((l) => COST.test(l))).toContain(
      '1M/day: 2 requests a poll (the cap), 2880 requests/day, 61517 s/day unread',
    );
  });
});
