import { format, inspect } from 'node:util';
import { describe, expect, test } from 'vitest';
import { ConfigError, formatProblem } from '../../src/config/errors.js';
import { fileSchema } from '../../src/config/file-schema.js';
import { loadConfig } from '../../src/config/load.js';
import { Secret } from '../../src/config/secret.js';
import { summarizeConfig } from '../../src/config/summary.js';
import { LIMITS } from '../../src/vocabulary.js';

const TOKEN = 'qstash_eyJVc2VySUQiOiJ0ZXN0In0=';
const API_KEY = 'mgmt_0f1e2d3c4b5a69788796a5b4';

describe('Secret', () => {
  const secret = new Secret(TOKEN);

  test('reveal() gives the value', () => {
    expect(secret.reveal()).toBe(TOKEN);
  });

  test.each([
    ['String()', () => String(secret)],
    ['a template literal', () => `${secret}`], // eslint-disable-line @typescript-eslint/restrict-template-expressions
    ['concatenation', () => 'token=' + (secret as unknown as string)],
    ['JSON.stringify', () => JSON.stringify(secret)],
    ['JSON.stringify of a holder', () => JSON.stringify({ nested: { token: secret } })],
    ['util.inspect', () => inspect(secret)],
    ['util.inspect of a holder, deep', () => inspect({ a: { b: { c: secret } } }, { depth: Infinity })],
    ['util.format %s / %o / %j', () => format('%s %o %j', secret, secret, secret)],
  ])('%s prints <redacted>', (_, render) => {
    const text = render();
    expect(text).toContain('<redacted>');
    expect(text).not.toContain(TOKEN);
  });

  test('the value is not an own property', () => {
    expect(Object.keys(secret)).toEqual([]);
    expect(Object.getOwnPropertyNames(secret)).toEqual([]);
  });
});

describe('summarizeConfig', () => {
  const fileConfig = () =>
    loadConfig({
      configFile: '/etc/ux/config.yml',
      env: { QSTASH_TOKEN: TOKEN },
      readFile: (path) => {
        if (path === '/etc/ux/api-key') return `${API_KEY}\n`;
        if (path === '/etc/ux/config.yml') {
          return `web_config_file: web.yml
qstash:
  - name: eu
    token: \${QSTASH_TOKEN}
    url: https://qstash-eu.example.com
management:
  - name: main
    email: ops@example.com
    api_key_file: api-key
    databases: [db-1, db-2]
    schedule: "0 */5 * * * *"
    sources: [databases, redis_stats, redis_backups, qstash_users, qstash_stats, vector_indexes, vector_stats, search_indexes, search_stats, audit_logs, teams, qstash_egress_ips]
`;
        }
        throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      },
    });

  test('names every account and setting but never a token or an API key', () => {
    const config = fileConfig();
    expect(config.qstash[0]!.token.reveal()).toBe(TOKEN);
    expect(config.management[0]!.apiKey.reveal()).toBe(API_KEY);
    const summary = summarizeConfig(config);
    expect(summary).not.toContain(TOKEN);
    expect(summary).not.toContain(API_KEY);
    // The e-mail is personal data, and a token may sit where it belongs: never printed either.
    expect(summary).not.toContain('ops@example.com');
    expect(summary).not.toContain('@');
    expect(summary).toContain('configuration OK (from /etc/ux/config.yml)');
    expect(summary).toContain('web_config_file: /etc/ux/web.yml');
    expect(summary).toMatch(/^qstash eu: https:\/\/qstash-eu\.example\.com, token <redacted>, .*every 30s/m);
    expect(summary).toMatch(
      /^management main: .*email <redacted>, api_key <redacted>, sources databases, redis_stats, redis_backups, qstash_users, qstash_stats, vector_indexes, vector_stats, search_indexes, search_stats, audit_logs, teams, qstash_egress_ips, databases db-1, db-2/m,
    );
    expect(summary).toContain('schedule "0 */5 * * * *" (every 300s), redis_backups every 3600s');
    // audit_interval (5m by default) and what each of its polls costs (docs/configuration.md, What each
    // source costs).
    expect(summary).toContain(
      ', audit_logs every 300s (1 request), teams every 300s (1 request and 1 per team, at most 51), qstash_egress_ips every 300s (1 request)',
    );
    expect(summary).toContain('max_indexes 1000');
    // The DLQ sources, on by default, and when they run.
    expect(summary).toMatch(
      /^qstash eu: .*sources .*dlq, workflow_dlq, .*, dlq every 300s \(1 to 10 requests a poll\), workflow_dlq every 300s \(1 to 10 requests a poll\), /m,
    );
    // The event sources, their lookback, and the entry's least cost: 5 sources every 30s (10 a
    // minute), the DLQs' 0.4, and 2 + 4 a minute for the events.
    expect(summary).toMatch(
      /, qstash_logs every 60s \(2 to 20 requests a poll\), workflow_runs every 60s \(4 to 40 requests a poll\), workflow_lookback 3600s, at least 16\.4 requests a minute$/m,
    );
    // On the one line of every limit (main's summary), with its default.
    expect(summary).toMatch(/^limits: .*\bmax_dlq_pages 10(,|$)/m);
    expect(summary.endsWith('\n')).toBe(true);
  });

  test('names every limit the file accepts, with its value, as the file spells it', () => {
    const keys = Object.keys(fileSchema.shape.limits.unwrap().shape);
    expect(keys).toContain('max_schedules');
    // Values no default has, within every limit's range (max_dlq_pages is at most 100); a duration
    // limit (event_settle) in seconds.
    const durations = new Set<string>(
      Object.values(LIMITS)
        .filter((limit) => 'duration' in limit)
        .map((limit) => limit.file),
    );
    const spelled = (key: string, i: number) => `${2 + i}${durations.has(key) ? 's' : ''}`;
    const yaml = `limits:\n${keys.map((key, i) => `  ${key}: ${spelled(key, i)}\n`).join('')}qstash:\n  - name: eu\n    token: t\n`;
    const config = loadConfig({ configFile: '/c.yml', env: {}, readFile: () => yaml });
    const line = summarizeConfig(config)
      .split('\n')
      .find((l) => l.startsWith('limits: '));
    expect(line?.slice('limits: '.length).split(', ').sort()).toEqual(
      keys.map((key, i) => `${key} ${spelled(key, i)}`).sort(),
    );
  });

  test('env-only mode: the summary names the environment, without secrets', () => {
    const config = loadConfig({
      configFile: undefined,
      env: {
        QSTASH_TOKEN: TOKEN,
        UPSTASH_EMAIL: 'ops@example.com',
        UPSTASH_API_KEY: API_KEY,
        UPSTASH_REDIS_DATABASES: 'db-1',
      },
    });
    const summary = summarizeConfig(config);
    expect(summary).toContain('from environment');
    expect(summary).toContain('qstash default:');
    expect(summary).toContain('management default:');
    expect(summary).not.toContain(TOKEN);
    expect(summary).not.toContain(API_KEY);
  });

  test('the whole config object can be dumped without leaking', () => {
    const config = fileConfig();
    for (const text of [JSON.stringify(config), inspect(config, { depth: Infinity })]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(API_KEY);
    }
  });
});

describe('ConfigError', () => {
  test('one line per problem, path first; problems kept as data', () => {
    const error = new ConfigError([
      { path: 'qstash[0].token', message: 'is required' },
      { path: '', message: 'no source configured' },
    ]);
    expect(error.name).toBe('ConfigError');
    expect(error.message).toBe('qstash[0].token: is required\nno source configured');
    expect(error.problems).toHaveLength(2);
    expect(formatProblem({ path: 'a.b', message: 'c' })).toBe('a.b: c');
  });

  test('a secret given where a URL belongs is not echoed by the error', () => {
    let caught: unknown;
    try {
      loadConfig({
        configFile: '/c.yml',
        env: {},
        readFile: () => `qstash:\n  - name: eu\n    url: ${TOKEN}\n    token: x\n`,
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toBe(
      'qstash[0].url: must be an absolute http:// or https:// URL',
    );
    expect(inspect(caught)).not.toContain(TOKEN);
  });
});
