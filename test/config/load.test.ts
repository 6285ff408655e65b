import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { numberKeys } from '../../src/config/file-schema.js';
import { loadConfig, loadFlagSettings, type LoadOptions } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';

/** The `http` and `limits` of a file that sets none, written out once. */
const DEFAULT_HTTP = { timeoutMs: 10_000, retries: 2, concurrency: 4, maxBodyBytes: 8 * 1024 * 1024 };
const DEFAULT_LIMITS = {
  maxFlowControlKeys: 1000,
  maxUrlGroups: 1000,
  maxCommandsPerDatabase: 100,
  maxQueues: 1000,
  maxSchedules: 1000,
  maxIndexes: 1000,
  maxDlqPages: 10,
  maxTeams: 50,
  maxEventPages: 10,
  maxEventSeries: 500,
  eventSettle: 30_000,
};

// A fake file system for the injected reader: absolute path → content. Missing files fail like fs does.
type Files = Record<string, string>;

const CONFIG = '/etc/upstash-exporter/config.yml';

function reader(files: Files): (path: string) => string {
  return (path) => {
    const content = files[path];
    if (content === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return content;
  };
}

function fromYaml(yaml: string, options: Partial<LoadOptions> & { files?: Files } = {}): Config {
  return loadConfig({
    configFile: CONFIG,
    env: options.env ?? {},
    ...(options.flags === undefined ? {} : { flags: options.flags }),
    readFile: reader({ [CONFIG]: yaml, ...options.files }),
  });
}

function fromEnv(env: NodeJS.ProcessEnv, files: Files = {}): Config {
  return loadConfig({ configFile: undefined, env, readFile: reader(files) });
}

/** Runs `load`, expects a ConfigError, and returns it. */
function configError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  expect.unreachable('the configuration was accepted');
}

/** The problems as `path: message` lines, for readable assertions. */
const lines = (error: ConfigError): string[] =>
  error.problems.map((p) => (p.path === '' ? p.message : `${p.path}: ${p.message}`));

const MINIMAL = 'qstash:\n  - name: eu\n    token: t0ken\n';
/** A management entry's sources by default: all but `teams`, written out here as users read them. */
const ALL_MANAGEMENT_SOURCES = [
  'databases',
  'redis_stats',
  'redis_backups',
  'qstash_users',
  'qstash_stats',
  'vector_indexes',
  'vector_stats',
  'search_indexes',
  'search_stats',
  'audit_logs',
  'qstash_egress_ips',
];
/** A QStash entry's sources by default, in this order (docs/configuration.md, What each source costs). */
const ALL_QSTASH_SOURCES = [
  'flow_control',
  'url_groups',
  'queues',
  'schedules',
  'global_parallelism',
  'dlq',
  'workflow_dlq',
  'qstash_logs',
  'workflow_runs',
];

describe('precedence of listen address and log level: flag > file > default', () => {
  test('defaults when neither the file nor a flag says anything', () => {
    const config = fromYaml(MINIMAL);
    expect(config.listenAddress).toBe(':9645');
    expect(config.logLevel).toBe('info');
    expect(config.webConfigFile).toBeUndefined();
  });

  test('the file wins over the defaults', () => {
    const config = fromYaml(`listen_address: "127.0.0.1:9999"\nlog_level: debug\n${MINIMAL}`);
    expect(config.listenAddress).toBe('127.0.0.1:9999');
    expect(config.logLevel).toBe('debug');
  });

  test('a flag wins over the file', () => {
    const config = fromYaml(`listen_address: "127.0.0.1:9999"\nlog_level: debug\n${MINIMAL}`, {
      flags: { listenAddress: ':1234', logLevel: 'error' },
    });
    expect(config.listenAddress).toBe(':1234');
    expect(config.logLevel).toBe('error');
  });

  test('flags apply in env-only mode too', () => {
    const config = loadConfig({
      configFile: undefined,
      env: { QSTASH_TOKEN: 'tok' },
      flags: { listenAddress: '[::1]:9100', logLevel: 'warn' },
    });
    expect(config.listenAddress).toBe('[::1]:9100');
    expect(config.logLevel).toBe('warn');
  });

  test('a bad flag is reported under the flag name, a bad file value under its key', () => {
    const flagError = configError(() =>
      fromYaml(MINIMAL, { flags: { listenAddress: 'nonsense', logLevel: 'loud' } }),
    );
    expect(lines(flagError)).toEqual([
      expect.stringMatching(/^--web\.listen-address: must be HOST:PORT/),
      '--log.level: must be one of debug, info, warn, error',
    ]);
    const fileError = configError(() => fromYaml(`listen_address: "host:99999"\n${MINIMAL}`));
    expect(lines(fileError)).toEqual([expect.stringMatching(/^listen_address: must be HOST:PORT/)]);
    expect(lines(configError(() => fromYaml(`log_level: verbose\n${MINIMAL}`)))).toEqual([
      'log_level: must be one of debug, info, warn, error',
    ]);
  });

  test('loadFlagSettings (demo mode) applies defaults and validates flags', () => {
    expect(loadFlagSettings({})).toEqual({
      listenAddress: ':9645',
      telemetryPath: '/metrics',
      logLevel: 'info',
      logFormat: 'json',
      webConfigFile: undefined,
      webEnableLifecycle: false,
      metrics: { allow: [], deny: [] },
      sharding: { shard: 0, total: 1 },
    });
    expect(
      loadFlagSettings({ listenAddress: '0.0.0.0:80', webConfigFile: 'web.yml', telemetryPath: '/m' }),
    ).toEqual({
      listenAddress: '0.0.0.0:80',
      telemetryPath: '/m',
      logLevel: 'info',
      logFormat: 'json',
      webConfigFile: resolve('web.yml'),
      webEnableLifecycle: false,
      metrics: { allow: [], deny: [] },
      sharding: { shard: 0, total: 1 },
    });
    expect(() => loadFlagSettings({ logLevel: 'trace' })).toThrow(ConfigError);
  });

  test('--web.telemetry-path: a path of its own, as node_exporter takes it; every bad one reported', () => {
    for (const path of ['/metrics', '/prometheus/metrics', '/-/metrics', "/m;v=1@x:y~z!$&'()*+,"])
      expect(fromYaml(MINIMAL, { flags: { telemetryPath: path } }).telemetryPath).toBe(path);
    expect(fromYaml(MINIMAL).telemetryPath).toBe('/metrics');
    for (const path of ['metrics', '', '/a b', '/m?x=1', '/m#x', '/m%20', '/m\n', `/${'m'.repeat(256)}`]) {
      const error = configError(() => fromYaml(MINIMAL, { flags: { telemetryPath: path } }));
      expect(lines(error), JSON.stringify(path)).toEqual([
        "--web.telemetry-path: must be a path such as /metrics: a leading /, then letters, digits and -._~!$&'()*+,;=:@/ (at most 256 characters)",
      ]);
    }
    // Another endpoint's path would hide it; reported with the other problems of the run.
    for (const path of ['/', '/healthz', '/readyz', '/-/healthy', '/-/ready', '/-/reload']) {
      const error = configError(() =>
        fromYaml(MINIMAL, { flags: { telemetryPath: path, listenAddress: 'nonsense' } }),
      );
      expect(error.problems.map((p) => p.path)).toEqual(['--web.listen-address', '--web.telemetry-path']);
      expect(error.problems[1]?.message).toMatch(
        new RegExp(`^must not be ${path.replace(/[-/]/g, '\\$&')}, which the exporter serves already`),
      );
    }
    expect(() => loadFlagSettings({ telemetryPath: '/readyz' })).toThrow(ConfigError);
  });
});

describe('env-only mode', () => {
  test('QSTASH_TOKEN alone enables all nine QStash sources for account default, every 30s (the DLQs every 5m, the events every 1m, runs looked back 1h)', () => {
    const config = fromEnv({ QSTASH_TOKEN: 'qs-secret' });
    expect(config.origin).toBe('environment');
    expect(config.management).toEqual([]);
    expect(config.qstash).toHaveLength(1);
    const [account] = config.qstash;
    expect(account!.name).toBe('default');
    expect(account!.url).toBe('https://qstash.upstash.io');
    expect(account!.token.reveal()).toBe('qs-secret');
    expect(account!.sources).toEqual(ALL_QSTASH_SOURCES);
    expect(account!.schedule).toEqual({ cron: '*/30 * * * * *', intervalMs: 30_000 });
    const dlq = { cron: '0 */5 * * * *', intervalMs: 300_000 };
    const events = { cron: '0 */1 * * * *', intervalMs: 60_000 };
    expect(account!.ownSchedules).toEqual({ dlq, events });
    expect(account!.workflowLookbackMs).toBe(3_600_000);
    expect(config.http).toEqual(DEFAULT_HTTP);
    expect(config.limits).toEqual(DEFAULT_LIMITS);
  });

  test.each([
    ['https://qstash-eu.example.com', 'https://qstash-eu.example.com'],
    ['https://qstash-eu.example.com/', 'https://qstash-eu.example.com'],
    ['http://127.0.0.1:8080//', 'http://127.0.0.1:8080'],
  ])('QSTASH_URL %s is used without its trailing slash', (url, expected) => {
    expect(fromEnv({ QSTASH_TOKEN: 't', QSTASH_URL: url }).qstash[0]!.url).toBe(expected);
  });

  test('management credentials with databases enable redis stats every 60s', () => {
    const config = fromEnv({
      UPSTASH_EMAIL: 'ops@example.com',
      UPSTASH_API_KEY: 'mgmt-secret',
      UPSTASH_REDIS_DATABASES: ' db-1 , db-2,,db-3 ',
      UPSTASH_MANAGEMENT_URL: 'https://mgmt.example.com/',
    });
    expect(config.qstash).toEqual([]);
    const [account] = config.management;
    expect(account!.name).toBe('default');
    expect(account!.url).toBe('https://mgmt.example.com');
    expect(account!.email).toBe('ops@example.com');
    expect(account!.apiKey.reveal()).toBe('mgmt-secret');
    expect(account!.databases).toEqual(['db-1', 'db-2', 'db-3']);
    expect(account!.schedule).toEqual({ cron: '0 */1 * * * *', intervalMs: 60_000 });
  });

  test('the management URL defaults to api.upstash.com', () => {
    const config = fromEnv({ UPSTASH_EMAIL: 'e@x', UPSTASH_API_KEY: 'k', UPSTASH_REDIS_DATABASES: 'a' });
    expect(config.management[0]!.url).toBe('https://api.upstash.com');
  });

  test('*_FILE variants read the secret from a file, surrounding whitespace trimmed', () => {
    const config = fromEnv(
      {
        QSTASH_TOKEN_FILE: '/run/secrets/qstash',
        UPSTASH_EMAIL: 'ops@example.com',
        UPSTASH_API_KEY_FILE: '/run/secrets/api-key',
        UPSTASH_REDIS_DATABASES: 'db-1',
      },
      { '/run/secrets/qstash': '  qs-from-file\n', '/run/secrets/api-key': '\tkey-from-file \r\n' },
    );
    expect(config.qstash[0]!.token.reveal()).toBe('qs-from-file');
    expect(config.management[0]!.apiKey.reveal()).toBe('key-from-file');
  });

  test('a missing or empty secret file is an error naming the variable', () => {
    const missing = configError(() => fromEnv({ QSTASH_TOKEN_FILE: '/run/secrets/nope' }));
    expect(lines(missing)).toEqual(['QSTASH_TOKEN_FILE: cannot read /run/secrets/nope: no such file']);
    const empty = configError(() => fromEnv({ QSTASH_TOKEN_FILE: '/s' }, { '/s': ' \n' }));
    expect(lines(empty)).toEqual(['QSTASH_TOKEN_FILE: /s is empty']);
  });

  test('a variable and its _FILE variant together are rejected', () => {
    const error = configError(() => fromEnv({ QSTASH_TOKEN: 'a', QSTASH_TOKEN_FILE: '/s' }, { '/s': 'b' }));
    expect(lines(error)).toEqual([
      'QSTASH_TOKEN: cannot be combined with QSTASH_TOKEN_FILE; set one of them',
    ]);
  });

  test('an empty variable counts as unset', () => {
    // Empty QSTASH_TOKEN → no QStash source; empty URL → the default; empty _FILE → inline value used.
    const config = fromEnv({
      QSTASH_TOKEN: 'tok',
      QSTASH_TOKEN_FILE: '',
      QSTASH_URL: '',
      UPSTASH_EMAIL: '',
      UPSTASH_API_KEY: '',
      UPSTASH_REDIS_DATABASES: '',
    });
    expect(config.qstash[0]!.url).toBe('https://qstash.upstash.io');
    expect(config.qstash[0]!.token.reveal()).toBe('tok');
    expect(config.management).toEqual([]);
    const none = configError(() => fromEnv({ QSTASH_TOKEN: '' }));
    expect(none.message).toMatch(/^no source configured/);
  });

  // Management credentials alone discover every database of the account (docs/configuration.md,
  // Redis discovery and filters); they used to be an error naming UPSTASH_REDIS_DATABASES.
  test('management credentials without databases discover every database', () => {
    const config = fromEnv({ UPSTASH_EMAIL: 'ops@example.com', UPSTASH_API_KEY: 'key' });
    expect(config.management[0]).toMatchObject({
      name: 'default',
      databases: undefined,
      include: [],
      exclude: [],
      sources: ALL_MANAGEMENT_SOURCES,
    });
  });

  test('partial management settings name each missing variable', () => {
    const error = configError(() => fromEnv({ UPSTASH_REDIS_DATABASES: 'db-1' }));
    expect(error.problems.map((p) => p.path)).toEqual(['UPSTASH_EMAIL', 'UPSTASH_API_KEY']);
  });

  test('a duplicated database ID is rejected', () => {
    const error = configError(() =>
      fromEnv({ UPSTASH_EMAIL: 'e@x', UPSTASH_API_KEY: 'k', UPSTASH_REDIS_DATABASES: 'a,b,a' }),
    );
    expect(lines(error)).toEqual(['UPSTASH_REDIS_DATABASES: lists a database ID twice']);
  });

  test('no source at all: the error says how to configure one', () => {
    const error = configError(() => fromEnv({ PATH: '/usr/bin' }));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toMatch(/^no source configured/);
    for (const hint of ['QSTASH_TOKEN', 'UPSTASH_EMAIL', 'UPSTASH_API_KEY', '--config']) {
      expect(error.message).toContain(hint);
    }
  });

  test('URLs that are not http(s) or carry credentials are rejected without echoing them', () => {
    const error = configError(() =>
      fromEnv({
        QSTASH_TOKEN: 'tok',
        QSTASH_URL: 'https://user:hunter2@qstash.example.com',
        UPSTASH_MANAGEMENT_URL: 'ftp://mgmt.example.com',
        UPSTASH_EMAIL: 'e@x',
        UPSTASH_API_KEY: 'k',
        UPSTASH_REDIS_DATABASES: 'a',
      }),
    );
    expect(lines(error)).toEqual([
      'QSTASH_URL: must not contain credentials',
      'UPSTASH_MANAGEMENT_URL: must be an absolute http:// or https:// URL',
    ]);
    expect(error.message).not.toContain('hunter2');
  });
});

describe('YAML file', () => {
  const FULL = `
listen_address: "0.0.0.0:9100"
log_level: warn
web_config_file: web/web-config.yml
http:
  timeout: 5s
  retries: 3
  concurrency: 8
limits:
  max_flow_control_keys: 50
  max_url_groups: 20
  max_queues: 30
  max_schedules: 40
  max_dlq_pages: 25
  max_event_pages: 3
  max_event_series: 70
  event_settle: 2m
qstash:
  - name: eu
    url: https://qstash-eu.example.com/
    token: \${QSTASH_TOKEN_EU}
    interval: 15s
    sources: [flow_control]
  - name: us
    token_file: secrets/qstash-us
    schedule: "0 */5 * * * *"
    dlq_interval: 15m
    events_interval: 2m
    workflow_lookback: 7d
management:
  - name: main
    url: http://127.0.0.1:8080
    email: ops@example.com
    api_key_file: /run/secrets/api-key
    databases: [db-id-1, db-id-2]
    interval: 2m
    sources: [redis_stats, qstash_users]
`;

  test('every key is read and resolved', () => {
    const config = fromYaml(FULL, {
      env: { QSTASH_TOKEN_EU: 'eu-secret' },
      files: {
        '/etc/upstash-exporter/secrets/qstash-us': 'us-secret\n',
        '/run/secrets/api-key': '  api-secret  ',
      },
    });
    expect(config.origin).toBe(CONFIG);
    expect(config.listenAddress).toBe('0.0.0.0:9100');
    expect(config.logLevel).toBe('warn');
    expect(config.webConfigFile).toBe('/etc/upstash-exporter/web/web-config.yml');
    expect(config.http).toEqual({
      timeoutMs: 5000,
      retries: 3,
      concurrency: 8,
      maxBodyBytes: 8 * 1024 * 1024,
    });
    expect(config.limits).toEqual({
      maxFlowControlKeys: 50,
      maxUrlGroups: 20,
      maxCommandsPerDatabase: 100,
      maxQueues: 30,
      maxSchedules: 40,
      maxIndexes: 1000,
      maxDlqPages: 25,
      maxTeams: 50,
      maxEventPages: 3,
      maxEventSeries: 70,
      eventSettle: 120_000,
    });

    const [eu, us] = config.qstash;
    expect(eu!.name).toBe('eu');
    expect(eu!.url).toBe('https://qstash-eu.example.com');
    expect(eu!.token.reveal()).toBe('eu-secret');
    expect(eu!.sources).toEqual(['flow_control']);
    expect(eu!.schedule).toEqual({ cron: '*/15 * * * * *', intervalMs: 15_000 });
    expect(us!.url).toBe('https://qstash.upstash.io');
    expect(us!.token.reveal()).toBe('us-secret');
    expect(us!.sources).toEqual(ALL_QSTASH_SOURCES);
    expect(us!.schedule).toEqual({ cron: '0 */5 * * * *', intervalMs: 300_000 });
    const usDlq = { cron: '0 */15 * * * *', intervalMs: 900_000 };
    expect(us!.ownSchedules).toEqual({ dlq: usDlq, events: { cron: '0 */2 * * * *', intervalMs: 120_000 } });
    expect(us!.workflowLookbackMs).toBe(7 * 86_400_000);
    expect(eu!.workflowLookbackMs).toBe(3_600_000);
    expect(eu!.ownSchedules.dlq.intervalMs).toBe(300_000);

    const [main] = config.management;
    expect(main).toMatchObject({
      name: 'main',
      url: 'http://127.0.0.1:8080',
      email: 'ops@example.com',
      databases: ['db-id-1', 'db-id-2'],
      schedule: { cron: '0 */2 * * * *', intervalMs: 120_000 },
      sources: ['redis_stats', 'qstash_users'],
    });
    expect(main!.apiKey.reveal()).toBe('api-secret');
  });

  test('defaults for everything a minimal file leaves out', () => {
    const config = fromYaml(
      `${MINIMAL}management:\n  - name: m\n    email: e@x\n    api_key: k\n    databases: [d]\n`,
    );
    expect(config.http).toEqual(DEFAULT_HTTP);
    expect(config.limits).toEqual(DEFAULT_LIMITS);
    expect(config.qstash[0]!.schedule.intervalMs).toBe(30_000);
    expect(config.qstash[0]!.url).toBe('https://qstash.upstash.io');
    expect(config.management[0]!.schedule.intervalMs).toBe(60_000);
    expect(config.management[0]!.url).toBe('https://api.upstash.com');
  });

  test('numbers may come from ${VAR}: a whole number expanded into a key that takes one is a number', () => {
    const config = fromYaml(
      `http:\n  retries: \${R}\n  concurrency: "\${C}"\n  max_response_size: \${S}\nsharding:\n  shard: \${SHARD}\n  total: \${TOTAL}\nlimits:\n  max_queues: \${Q}\n${MINIMAL}`,
      { env: { R: '5', C: '16', S: '4096', SHARD: '1', TOTAL: '3', Q: '7' } },
    );
    expect(config.http.retries).toBe(5);
    expect(config.http.concurrency).toBe(16);
    expect(config.http.maxBodyBytes).toBe(4096);
    expect(config.sharding).toEqual({ shard: 1, total: 3 });
    expect(config.limits.maxQueues).toBe(7);
    // Text stays text: a size with its unit, and a number expanded into a key that takes text.
    expect(
      fromYaml(`http:\n  max_response_size: \${S}\n${MINIMAL}`, { env: { S: '2MiB' } }).http.maxBodyBytes,
    ).toBe(2 * 1024 * 1024);
    expect(
      fromYaml('qstash:\n  - name: ${N}\n    token: ${T}\n', { env: { N: '42', T: '12345' } }).qstash[0],
    ).toMatchObject({ name: '42' });
    // Not a whole number: still refused as one.
    expect(
      lines(configError(() => fromYaml(`http:\n  retries: \${R}\n${MINIMAL}`, { env: { R: 'two' } }))),
    ).toEqual(['http.retries: must be a whole number']);
  });

  test('${VAR} is expanded inside a value and $${ gives a literal ${', () => {
    const config = fromYaml(
      'qstash:\n  - name: eu\n    token: "pre-${A}-mid-$${NOT_EXPANDED}-${B}"\n    url: "https://${HOST}/"\n',
      { env: { A: 'x', B: 'y', HOST: 'qstash.example.com' } },
    );
    expect(config.qstash[0]!.token.reveal()).toBe('pre-x-mid-${NOT_EXPANDED}-y');
    expect(config.qstash[0]!.url).toBe('https://qstash.example.com');
  });

  test('an expanded value cannot inject YAML structure', () => {
    const config = fromYaml(
      'management:\n  - name: m\n    email: e@x\n    api_key: k\n    databases: ["${E}"]\n',
      {
        env: { E: 'db-1\nlog_level: debug' },
      },
    );
    expect(config.management[0]!.databases).toEqual(['db-1\nlog_level: debug']);
    expect(config.logLevel).toBe('info');
  });

  test('an email that is not an e-mail address (a pasted token) is an error that never shows the value', () => {
    // Shaped like Upstash's credentials: a key, a base64 token, an address with a space, two @.
    const pasted = [
      'a1b2c3d4-e5f6-4a5b-9c8d-0123456789ab',
      'eyJVc2VySUQiOiJzZWNyZXQtdG9rZW4ifQ==',
      'ops @example.com',
      'a@b@c',
    ];
    const yaml = `management:\n${pasted
      .map((value, i) => `  - name: m${i}\n    email: "${value}"\n    api_key: k\n    databases: [d]\n`)
      .join('')}`;
    const error = configError(() => fromYaml(yaml));
    // Every entry reported, each with what is expected.
    expect(error.problems.map((p) => p.path)).toEqual(pasted.map((_, i) => `management[${i}].email`));
    for (const problem of error.problems)
      expect(problem.message).toMatch(/^must be the e-mail address of the account that created the API key/);
    for (const value of pasted) expect(error.message).not.toContain(value);
    // The same from the environment, named by its variable; with the other problems of the run.
    const fromEnvironment = configError(() =>
      fromEnv({ UPSTASH_EMAIL: pasted[1], UPSTASH_API_KEY: 'k', UPSTASH_MANAGEMENT_URL: 'ftp://x' }),
    );
    expect(fromEnvironment.problems.map((p) => p.path).sort()).toEqual([
      'UPSTASH_EMAIL',
      'UPSTASH_MANAGEMENT_URL',
    ]);
    expect(fromEnvironment.message).not.toContain(pasted[1]);
    // Addresses as accounts have them pass, a dotless domain too (an intranet's).
    for (const address of ['ops@example.com', 'first.last+upstash@sub.example.co.uk', 'e@x'])
      expect(
        fromYaml(`management:\n  - name: m\n    email: ${address}\n    api_key: k\n`).management[0]!.email,
      ).toBe(address);
    expect(() =>
      fromYaml(`management:\n  - name: m\n    email: ${'a'.repeat(250)}@x.io\n    api_key: k\n`),
    ).toThrow(ConfigError);
  });

  test('an unset or empty variable is an error naming the variable and the field', () => {
    const error = configError(() =>
      fromYaml('qstash:\n  - name: eu\n    token: ${QSTASH_TOKEN}\n    url: https://${EMPTY}/\n', {
        env: { EMPTY: '' },
      }),
    );
    expect(lines(error)).toEqual([
      'qstash[0].token: refers to environment variable QSTASH_TOKEN, which is not set',
      'qstash[0].url: refers to environment variable EMPTY, which is not set',
    ]);
  });

  test('a malformed ${…} reference is an error', () => {
    const error = configError(() => fromYaml('qstash:\n  - name: eu\n    token: ${not-a-name}\n'));
    expect(lines(error)).toEqual(['qstash[0].token: has a malformed ${…} reference (expected ${NAME})']);
  });

  test('unknown keys are named, their values never echoed', () => {
    const secret = 'sk_live_9f8e7d6c5b4a';
    const error = configError(() =>
      fromYaml(
        `listen_adress: ":1"\nhttp:\n  timout: 5s\nqstash:\n  - name: eu\n    tokne: ${secret}\n    token: x\n`,
      ),
    );
    expect(lines(error).sort()).toEqual(
      [
        'http.timout: is not a known key; did you mean timeout?',
        'listen_adress: is not a known key; did you mean listen_address?',
        'qstash[0].tokne: is not a known key; did you mean token?',
      ].sort(),
    );
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error.problems)).not.toContain(secret);
  });

  test('a value of the wrong type says what was expected without echoing it', () => {
    const secret = 'sk_live_0a1b2c3d4e';
    const error = configError(() =>
      fromYaml(`log_level: ${secret}\nlisten_address: 9645\nqstash:\n  - name: eu\n    token: [${secret}]\n`),
    );
    expect(lines(error).sort()).toEqual([
      'listen_address: must be HOST:PORT such as :9645 (or [IPv6]:PORT), with a port from 0 to 65535',
      'log_level: must be one of debug, info, warn, error',
      'qstash[0].token: must be the secret itself, as text (in quotes if it looks like a number)',
    ]);
    expect(error.message).not.toContain(secret);
  });

  test('a misspelt key is told the nearest known key of its own mapping; a key like none is not', () => {
    const secret = 'sk_live_5e6f7a8b9c';
    const error = configError(() =>
      fromYaml(
        `limits:
  max_queue: 5
management:
  - name: m
    emial: ${secret}
    api_key: k
    databses: [d]
    colour: ${secret}
`,
      ),
    );
    expect(lines(error)).toEqual([
      'limits.max_queue: is not a known key; did you mean max_queues?',
      'management[0].email: is required',
      'management[0].emial: is not a known key; did you mean email?',
      'management[0].databses: is not a known key; did you mean databases?',
      'management[0].colour: is not a known key',
    ]);
    expect(error.message).not.toContain(secret);
  });

  test('timeout: 5 and timeout: ten both say a duration like 10s is expected', () => {
    for (const value of ['5', 'ten', '[10s]']) {
      expect(lines(configError(() => fromYaml(`http:\n  timeout: ${value}\n${MINIMAL}`)))).toEqual([
        'http.timeout: must be a duration like 10s',
      ]);
    }
  });

  test('interval and schedule of the wrong type say what is expected, as a bad value of theirs does', () => {
    expect(
      lines(configError(() => fromYaml('qstash:\n  - name: a\n    token: t\n    interval: 30\n'))),
    ).toEqual(['qstash[0].interval: must be a duration like 30s, 5m or 1h']);
    expect(
      lines(configError(() => fromYaml('qstash:\n  - name: a\n    token: t\n    schedule: 5\n'))),
    ).toEqual(['qstash[0].schedule: must be a node-cron expression with 6 fields (seconds first)']);
  });

  test('listen_address: 9645 says HOST:PORT such as :9645 is expected', () => {
    expect(lines(configError(() => fromYaml(`listen_address: 9645\n${MINIMAL}`)))).toEqual([
      'listen_address: must be HOST:PORT such as :9645 (or [IPv6]:PORT), with a port from 0 to 65535',
    ]);
    expect(fromYaml(`listen_address: :9645\n${MINIMAL}`).listenAddress).toBe(':9645');
  });

  test('a number in quotes, in every key that takes a number, is an error saying a number is expected', () => {
    const keys = [...numberKeys()].sort();
    // Every numeric key of the file: a new one is found by numberKeys and checked here too.
    expect(keys).toEqual([
      'http.concurrency',
      'http.max_response_size',
      'http.retries',
      'limits.max_commands_per_database',
      'limits.max_dlq_pages',
      'limits.max_event_pages',
      'limits.max_event_series',
      'limits.max_flow_control_keys',
      'limits.max_indexes',
      'limits.max_queues',
      'limits.max_schedules',
      'limits.max_teams',
      'limits.max_url_groups',
      'sharding.shard',
      'sharding.total',
    ]);
    for (const key of keys) {
      const [section, name] = key.split('.') as [string, string];
      const error = configError(() => fromYaml(`${section}:\n  ${name}: "2048"\n${MINIMAL}`));
      expect(lines(error), key).toHaveLength(1);
      expect(lines(error)[0], key).toMatch(new RegExp(`^${key}: must be a (whole )?number.*without quotes`));
      // Unquoted, it is taken, or refused for its range (a shard of 1 of 1, a size of 1 byte), not its type.
      let refused: string[] = [];
      try {
        fromYaml(`${section}:\n  ${name}: 1\n${MINIMAL}`);
      } catch (unquoted) {
        refused = lines(unquoted as ConfigError);
      }
      expect(refused.join('\n'), key).not.toMatch(/quotes|must be a (whole )?number/);
    }
  });

  test('a list where a file path belongs is one problem, not also "must not be empty"', () => {
    expect(lines(configError(() => fromYaml('qstash:\n  - name: eu\n    token_file: []\n')))).toEqual([
      'qstash[0].token_file: must be a file path',
    ]);
  });

  test('a file that is not a mapping says what the configuration must be', () => {
    expect(lines(configError(() => fromYaml('- a\n- b\n')))).toEqual([
      'the configuration must be a mapping of keys to values (listen_address:, qstash:, …)',
    ]);
  });

  test('a quoted number in a list is text as well: retries: ["2"]', () => {
    expect(lines(configError(() => fromYaml(`http:\n  retries: ["2"]\n${MINIMAL}`)))).toEqual([
      'http.retries: must be a whole number',
    ]);
  });

  test('a value of the wrong type never gets a type name or zod wording, in any key', () => {
    const wrong = [
      'listen_address: [1]',
      'log_level: 5',
      'log_format: [json]',
      'web_config_file: 5',
      'sharding: 5',
      'sharding:\n  shard: [1]\n  total: yes',
      'http: []',
      'http:\n  timeout: 5\n  retries: true\n  concurrency: "4"\n  max_response_size: [1]',
      'limits: x',
      'limits:\n  max_queues: "9"\n  max_url_groups: {}',
      'qstash: eu',
      'qstash:\n  - eu',
      'qstash:\n  - name: 5\n    url: 5\n    token: 5\n    token_file: []\n    sources: flow_control\n    interval: 30',
      'management: {}',
      'management:\n  - name: m\n    email: 5\n    api_key: [k]\n    api_key_file: 5\n    databases: d\n    schedule: []\n    sources: 5',
      'management:\n  - name: m\n    email: e\n    api_key: k\n    databases: [5, []]',
      '[1, 2]',
      '"just text"',
    ];
    for (const yaml of wrong) {
      const error = configError(() => fromYaml(yaml));
      expect(error.problems.length, yaml).toBeGreaterThan(0);
      for (const line of lines(error)) {
        expect(line, yaml).not.toMatch(/\b(string|array|object|boolean|Invalid|expected|received)\b/);
        expect(line, yaml).toMatch(/(must|is|cannot|lists|refers|has|duplicates) /);
      }
    }
  });

  test('a missing required key is reported as required', () => {
    const error = configError(() => fromYaml('management:\n  - name: m\n    api_key: k\n'));
    expect(lines(error)).toEqual(['management[0].email: is required']);
  });

  test.each([
    ['"abc"', 'must be a whole number'],
    ['1.5', 'must be a whole number'],
    ['-1', 'must be at least 0'],
  ])('http.retries: %s → %s', (value, message) => {
    expect(lines(configError(() => fromYaml(`http:\n  retries: ${value}\n${MINIMAL}`)))).toEqual([
      `http.retries: ${message}`,
    ]);
  });

  test('duplicate names within a list are rejected; the same name in both lists is fine', () => {
    const error = configError(() =>
      fromYaml(
        'qstash:\n  - name: eu\n    token: a\n  - name: eu\n    token: b\nmanagement:\n  - name: eu\n    email: e@x\n    api_key: k\n    databases: [d, d]\n',
      ),
    );
    expect(lines(error)).toEqual([
      'qstash[1].name: duplicates the name of another qstash entry',
      'management[0].databases: lists a database ID twice',
    ]);
    const ok = fromYaml(
      'qstash:\n  - name: eu\n    token: a\nmanagement:\n  - name: eu\n    email: e@x\n    api_key: k\n    databases: [d]\n',
    );
    expect(ok.qstash[0]!.name).toBe(ok.management[0]!.name);
  });

  test('an account name must be label-friendly', () => {
    const error = configError(() => fromYaml('qstash:\n  - name: "eu west"\n    token: a\n'));
    expect(error.problems.map((p) => p.path)).toEqual(['qstash[0].name']);
  });

  test('sources: a typo, an empty list and a repeated source are errors', () => {
    expect(
      lines(configError(() => fromYaml('qstash:\n  - name: a\n    token: t\n    sources: [flowcontrol]\n'))),
    ).toEqual([
      'qstash[0].sources[0]: must be one of flow_control, url_groups, queues, schedules, global_parallelism, dlq, workflow_dlq, qstash_logs, qstash_deliveries, workflow_runs',
    ]);
    expect(
      lines(configError(() => fromYaml('qstash:\n  - name: a\n    token: t\n    sources: []\n'))),
    ).toEqual(['qstash[0].sources: must list at least one source']);
    expect(
      lines(
        configError(() =>
          fromYaml('qstash:\n  - name: a\n    token: t\n    sources: [url_groups, url_groups]\n'),
        ),
      ),
    ).toEqual(['qstash[0].sources: lists a source twice']);
  });

  test('qstash_deliveries: not among the default sources, polled once listed', () => {
    const base = 'qstash:\n  - name: a\n    token: t\n';
    expect(fromYaml(base).qstash[0]!.sources).not.toContain('qstash_deliveries');
    expect(fromYaml(`${base}    sources: [qstash_logs, qstash_deliveries]\n`).qstash[0]!.sources).toEqual([
      'qstash_logs',
      'qstash_deliveries',
    ]);
  });

  test('management sources: all but teams by default; QStash alone needs no databases', () => {
    const base = 'management:\n  - name: m\n    email: e@x\n    api_key: k\n';
    expect(fromYaml(`${base}    databases: [d]\n`).management[0]!.sources).toEqual(ALL_MANAGEMENT_SOURCES);
    // teams reads an endpoint Upstash's tools call deprecated: polled only where listed.
    expect(ALL_MANAGEMENT_SOURCES).not.toContain('teams');
    const listed = fromYaml(`${base}    databases: [d]\n    sources: [audit_logs, teams]\n`).management[0]!;
    expect(listed.sources).toEqual(['audit_logs', 'teams']);
    const qstashOnly = fromYaml(`${base}    sources: [qstash_users, qstash_stats]\n`).management[0]!;
    expect(qstashOnly.sources).toEqual(['qstash_users', 'qstash_stats']);
    expect(qstashOnly.databases).toBeUndefined();
    expect(lines(configError(() => fromYaml(`${base}    sources: [qstash_stats]\n`)))).toEqual([
      'management[0].sources: lists qstash_stats without qstash_users, which tells it the QStash instances to poll',
    ]);
    expect(lines(configError(() => fromYaml(`${base}    sources: [redis_stats]\n`)))).toEqual([
      'management[0].databases: is required when the databases source is not polled (it discovers the databases)',
    ]);
  });

  test('v0.3 sources: the index stats need their listing, backups need the databases; backups_interval', () => {
    const base = 'management:\n  - name: m\n    email: e@x\n    api_key: k\n';
    expect(
      lines(
        configError(() => fromYaml(`${base}    sources: [vector_stats, search_stats, search_indexes]\n`)),
      ),
    ).toEqual([
      'management[0].sources: lists vector_stats without vector_indexes, which tells it the Vector indexes to poll',
    ]);
    expect(lines(configError(() => fromYaml(`${base}    sources: [redis_backups]\n`)))).toEqual([
      'management[0].databases: is required when the databases source is not polled (it discovers the databases)',
    ]);
    // Default 1h; the same rules as interval; `schedule` does not cover it.
    const withSchedule = fromYaml(`${base}    schedule: "0 */5 * * * *"\n`).management[0]!;
    expect(withSchedule.ownSchedules.backups).toEqual({
      cron: '0 0 */1 * * *',
      intervalMs: 3_600_000,
    });
    const every = fromYaml(`${base}    backups_interval: 6h\n`).management[0]!;
    expect(every.ownSchedules.backups.intervalMs).toBe(6 * 3_600_000);
    expect(lines(configError(() => fromYaml(`${base}    backups_interval: 7m\n`)))[0]).toMatch(
      /^management\[0\]\.backups_interval: must be an interval cron can express evenly/,
    );
    expect(fromYaml(`limits:\n  max_indexes: 5\n${base}`).limits.maxIndexes).toBe(5);
    expect(lines(configError(() => fromYaml(`limits:\n  max_indexes: 0\n${base}`)))).toEqual([
      'limits.max_indexes: must be at least 1',
    ]);
  });

  test('each source polled per ID needs the listing its row names, one problem per listing', () => {
    const base = 'management:\n  - name: m\n    email: e@x\n    api_key: k\n';
    const refused = (sources: string): string[] =>
      lines(configError(() => fromYaml(`${base}    sources: [${sources}]\n`)));
    expect(refused('search_stats')).toEqual([
      'management[0].sources: lists search_stats without search_indexes, which tells it the Search indexes to poll',
    ]);
    expect(refused('redis_stats, redis_backups, search_stats, qstash_stats, vector_stats')).toEqual([
      'management[0].databases: is required when the databases source is not polled (it discovers the databases)',
      'management[0].sources: lists qstash_stats without qstash_users, which tells it the QStash instances to poll',
      'management[0].sources: lists vector_stats without vector_indexes, which tells it the Vector indexes to poll',
      'management[0].sources: lists search_stats without search_indexes, which tells it the Search indexes to poll',
    ]);
    const given = fromYaml(`${base}    databases: [d]\n    sources: [redis_stats, redis_backups]\n`);
    expect(given.management[0]!.sources).toEqual(['redis_stats', 'redis_backups']);
    const listed = fromYaml(`${base}    sources: [search_indexes, search_stats, databases, redis_stats]\n`);
    expect(listed.management[0]!.sources).toEqual([
      'search_indexes',
      'search_stats',
      'databases',
      'redis_stats',
    ]);
  });

  test('audit_interval (5m by default) follows the rules of interval; limits.max_teams is from 1 to 1000, max_event_series from 1 to 10000', () => {
    const base =
      'management:\n  - name: m\n    email: e@x\n    api_key: k\n    url: http://127.0.0.1:1/upstash/\n';
    const entry = fromYaml(base).management[0]!;
    expect(entry.ownSchedules.audit.intervalMs).toBe(300_000);
    // A base URL with a path keeps it, without its trailing slash: /auditlogs and /v2/teams join it.
    expect(entry.url).toBe('http://127.0.0.1:1/upstash');
    expect(fromYaml(`${base}    audit_interval: 1h\n`).management[0]!.ownSchedules.audit.intervalMs).toBe(
      3_600_000,
    );
    expect(lines(configError(() => fromYaml(`${base}    audit_interval: 7m\n`)))[0]).toMatch(
      /^management\[0\]\.audit_interval: must be an interval cron can express evenly/,
    );
    expect(fromYaml(`limits:\n  max_teams: 1000\n  max_event_series: 10000\n${base}`).limits).toMatchObject({
      maxTeams: 1000,
      maxEventSeries: 10_000,
    });
    expect(
      lines(configError(() => fromYaml(`limits:\n  max_teams: 1001\n  max_event_series: 0\n${base}`))),
    ).toEqual(['limits.max_teams: must be at most 1000', 'limits.max_event_series: must be at least 1']);
    // The settle window: a duration from 0s to 10m.
    expect(fromYaml(`limits:\n  event_settle: 0s\n${base}`).limits.eventSettle).toBe(0);
    expect(fromYaml(`limits:\n  event_settle: 10m\n${base}`).limits.eventSettle).toBe(600_000);
    expect(
      lines(configError(() => fromYaml(`limits:\n  event_settle: 11m\n${base}`))).concat(
        lines(configError(() => fromYaml(`limits:\n  event_settle: 30\n${base}`))),
      ),
    ).toEqual([
      'limits.event_settle: must be from 0s to 10m',
      'limits.event_settle: must be a duration like 0s, 30s or 5m',
    ]);
  });

  test('dlq_interval follows the rules of interval; limits.max_dlq_pages is from 1 to 100', () => {
    expect(
      lines(
        configError(() =>
          fromYaml(
            'limits:\n  max_dlq_pages: 101\nqstash:\n  - name: a\n    token: t\n    dlq_interval: 7m\n  - name: b\n    token: t\n    dlq_interval: soon\n',
          ),
        ),
      ),
    ).toEqual([
      'limits.max_dlq_pages: must be at most 100',
      'qstash[0].dlq_interval: must be an interval cron can express evenly: a divisor of 60s (1s, 2s, … 30s), of 60m (1m, 2m, … 30m) or of 24h (1h, 2h, … 24h); use `schedule` for anything else',
      'qstash[1].dlq_interval: must be a duration like 30s, 5m or 1h',
    ]);
    expect(lines(configError(() => fromYaml(`limits:\n  max_dlq_pages: 0\n${MINIMAL}`)))).toEqual([
      'limits.max_dlq_pages: must be at least 1',
    ]);
  });

  test('events_interval follows the rules of interval; workflow_lookback is from 1m to 7d; the event limits are bounded', () => {
    expect(
      lines(
        configError(() =>
          fromYaml(
            'limits:\n  max_event_pages: 101\n  max_event_series: 10001\nqstash:\n  - name: a\n    token: t\n    events_interval: 7m\n    workflow_lookback: 30s\n  - name: b\n    token: t\n    workflow_lookback: 8d\n  - name: c\n    token: t\n    workflow_lookback: soon\n',
          ),
        ),
      ),
    ).toEqual([
      'limits.max_event_pages: must be at most 100',
      'limits.max_event_series: must be at most 10000',
      'qstash[0].events_interval: must be an interval cron can express evenly: a divisor of 60s (1s, 2s, … 30s), of 60m (1m, 2m, … 30m) or of 24h (1h, 2h, … 24h); use `schedule` for anything else',
      'qstash[0].workflow_lookback: must be from 1m to 7d',
      'qstash[1].workflow_lookback: must be from 1m to 7d',
      'qstash[2].workflow_lookback: must be a duration like 30m, 1h or 7d',
    ]);
    expect(
      fromYaml('qstash:\n  - name: a\n    token: t\n    workflow_lookback: 90m\n').qstash[0]!
        .workflowLookbackMs,
    ).toBe(5_400_000);
  });

  test('limits.max_queues and limits.max_schedules must be whole numbers of at least 1', () => {
    expect(
      lines(configError(() => fromYaml(`limits:\n  max_queues: 0\n  max_schedules: 1.5\n${MINIMAL}`))),
    ).toEqual(['limits.max_queues: must be at least 1', 'limits.max_schedules: must be a whole number']);
  });

  describe('intervals', () => {
    const withInterval = (interval: string): Config =>
      fromYaml(`qstash:\n  - name: a\n    token: t\n    interval: ${interval}\n`);

    test.each([
      ['1s', '*/1 * * * * *', 1_000],
      ['30s', '*/30 * * * * *', 30_000],
      ['60s', '0 */1 * * * *', 60_000],
      ['2m', '0 */2 * * * *', 120_000],
      ['30m', '0 */30 * * * *', 1_800_000],
      ['1h', '0 0 */1 * * *', 3_600_000],
      ['6h', '0 0 */6 * * *', 21_600_000],
      ['24h', '0 0 0 * * *', 86_400_000],
    ])('%s', (interval, cron, intervalMs) => {
      expect(withInterval(interval).qstash[0]!.schedule).toEqual({ cron, intervalMs });
    });

    test.each(['7s', '90s', '45s', '90m', '45m', '5h', '48h'])(
      '%s is rejected with the cron explanation',
      (interval) => {
        const error = configError(() => withInterval(interval));
        expect(error.problems).toHaveLength(1);
        expect(error.problems[0]!.path).toBe('qstash[0].interval');
        expect(error.problems[0]!.message).toMatch(/cron can express evenly/);
        expect(error.problems[0]!.message).toMatch(/divisor of 60s/);
        expect(error.problems[0]!.message).toMatch(/schedule/);
      },
    );

    test.each(['30', '0s', '1.5m', '10ms', '1d', ' 30s', '-30s'])('%j is not a duration', (interval) => {
      const error = configError(() => withInterval(JSON.stringify(interval)));
      expect(lines(error)).toEqual(['qstash[0].interval: must be a duration like 30s, 5m or 1h']);
    });

    test('schedule: a node-cron expression with seconds', () => {
      const config = fromYaml('qstash:\n  - name: a\n    token: t\n    schedule: "*/20 * * * * *"\n');
      expect(config.qstash[0]!.schedule).toEqual({ cron: '*/20 * * * * *', intervalMs: 20_000 });
    });

    test('schedule: five fields (no seconds) and nonsense are rejected', () => {
      expect(
        lines(
          configError(() => fromYaml('qstash:\n  - name: a\n    token: t\n    schedule: "*/5 * * * *"\n')),
        ),
      ).toEqual(['qstash[0].schedule: must be a node-cron expression with 6 fields (seconds first)']);
      expect(
        lines(
          configError(() => fromYaml('qstash:\n  - name: a\n    token: t\n    schedule: "a b c d e f"\n')),
        ),
      ).toEqual(['qstash[0].schedule: is not a valid node-cron expression']);
    });

    test('interval and schedule together are rejected', () => {
      const error = configError(() =>
        fromYaml('qstash:\n  - name: a\n    token: t\n    interval: 30s\n    schedule: "*/30 * * * * *"\n'),
      );
      expect(lines(error)).toEqual([
        'qstash[0].schedule: cannot be combined with interval; give one of them',
      ]);
    });

    test('http.timeout must be a duration', () => {
      expect(lines(configError(() => fromYaml(`http:\n  timeout: soon\n${MINIMAL}`)))).toEqual([
        'http.timeout: must be a duration like 10s',
      ]);
    });
  });

  describe('secrets', () => {
    test('token and token_file together are rejected, as are api_key and api_key_file', () => {
      const error = configError(() =>
        fromYaml(
          'qstash:\n  - name: a\n    token: t\n    token_file: /s\nmanagement:\n  - name: m\n    email: e@x\n    api_key: k\n    api_key_file: /s\n    databases: [d]\n',
          { files: { '/s': 'x' } },
        ),
      );
      expect(lines(error)).toEqual([
        'qstash[0].token: cannot be combined with token_file; give one of them',
        'management[0].api_key: cannot be combined with api_key_file; give one of them',
      ]);
    });

    test('neither token nor token_file is an error', () => {
      expect(lines(configError(() => fromYaml('qstash:\n  - name: a\n')))).toEqual([
        'qstash[0].token: is required (or token_file)',
      ]);
    });

    test('relative *_file and web_config_file are resolved against the config file folder', () => {
      const config = fromYaml(
        'web_config_file: ../web.yml\nqstash:\n  - name: a\n    token_file: ./secrets/t\nmanagement:\n  - name: m\n    email: e@x\n    api_key_file: k.txt\n    databases: [d]\n',
        { files: { '/etc/upstash-exporter/secrets/t': 'tok\n', '/etc/upstash-exporter/k.txt': 'key' } },
      );
      expect(config.webConfigFile).toBe('/etc/web.yml');
      expect(config.qstash[0]!.token.reveal()).toBe('tok');
      expect(config.management[0]!.apiKey.reveal()).toBe('key');
    });

    test('an unreadable or empty secret file names the field and the resolved path', () => {
      const error = configError(() =>
        fromYaml('qstash:\n  - name: a\n    token_file: missing\n  - name: b\n    token_file: /empty\n', {
          files: { '/empty': '\n\n' },
        }),
      );
      expect(lines(error)).toEqual([
        'qstash[0].token_file: cannot read /etc/upstash-exporter/missing: no such file',
        'qstash[1].token_file: /empty is empty',
      ]);
    });
  });

  test('URLs with credentials, a query or another scheme are rejected, credentials not echoed', () => {
    const error = configError(() =>
      fromYaml(
        'qstash:\n  - name: a\n    token: t\n    url: https://me:pa55w0rd@qstash.example.com\n  - name: b\n    token: t\n    url: https://qstash.example.com/?x=1\n  - name: c\n    token: t\n    url: qstash.example.com\n',
      ),
    );
    expect(lines(error)).toEqual([
      'qstash[0].url: must not contain credentials',
      'qstash[1].url: must not have a query or fragment',
      'qstash[2].url: must be an absolute http:// or https:// URL',
    ]);
    expect(error.message).not.toContain('pa55w0rd');
  });

  test('bad YAML is reported with its line, without quoting the source', () => {
    const error = configError(() =>
      fromYaml('log_level: info\nqstash:\n  - name: a\n    token: "s3cr3t-value\n  bad: [\n'),
    );
    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.problems[0]!.path).toBe(CONFIG);
    expect(error.problems[0]!.message).toMatch(/is not valid YAML at line \d+, column \d+/);
    expect(error.message).not.toContain('s3cr3t');
  });

  test('bad YAML: the reported line and column are where the problem is', () => {
    const tab = configError(() => fromYaml('log_level: info\nhttp:\n\tretries: 1\n'));
    expect(lines(tab)).toEqual([`${CONFIG}: is not valid YAML at line 3, column 1 (TAB_AS_INDENT)`]);
    const nested = configError(() => fromYaml('log_level: info\nlisten_address: ":1"\nhttp: timeout: 5s\n'));
    expect(nested.problems[0]!.message).toMatch(/at line 3, column \d+/);
  });

  test('a duplicate key is bad YAML', () => {
    const error = configError(() => fromYaml(`log_level: info\nlog_level: debug\n${MINIMAL}`));
    expect(error.problems[0]!.message).toMatch(/DUPLICATE_KEY/);
    expect(error.problems[0]!.message).toMatch(/line 2/);
  });

  test('many problems at once are all reported', () => {
    const error = configError(() =>
      fromYaml(
        `log_level: chatty
http:
  retries: 11
  concurrency: 0
  timeout: 3x
limits:
  max_url_groups: 0
qstash:
  - name: a
    token: t
    interval: 7s
  - name: a
    token_file: /nope
management:
  - name: m
    email: e@x
    api_key: \${UNSET_KEY}
    databases: []
`,
      ),
    );
    // Every problem of every kind in one run: expansion, schema, cron, names, secret files.
    expect(lines(error)).toEqual([
      'management[0].api_key: refers to environment variable UNSET_KEY, which is not set',
      'log_level: must be one of debug, info, warn, error',
      'http.timeout: must be a duration like 10s',
      'http.retries: must be at most 10',
      'http.concurrency: must be at least 1',
      'limits.max_url_groups: must be at least 1',
      expect.stringMatching(/^qstash\[0\]\.interval: must be an interval cron can express evenly/),
      'qstash[1].name: duplicates the name of another qstash entry',
      'management[0].databases: must list at least one database ID',
      'qstash[1].token_file: cannot read /nope: no such file',
    ]);
    expect(error.problems).toHaveLength(10);
    expect(error.message.split('\n')).toHaveLength(10);
  });

  test('an unreadable config file is an error naming it', () => {
    const error = configError(() =>
      loadConfig({ configFile: '/nowhere/config.yml', env: {}, readFile: reader({}) }),
    );
    expect(lines(error)).toEqual(['--config: cannot read /nowhere/config.yml: no such file']);
  });

  test('an empty file has no source', () => {
    expect(lines(configError(() => fromYaml('')))).toEqual([
      'no source configured: add a `qstash` or `management` entry',
    ]);
  });

  test('a file that is not a mapping is rejected', () => {
    expect(configError(() => fromYaml('- just\n- a list\n')).problems).toHaveLength(1);
  });
});

describe('real files on disk', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  test('the default reader loads the file and secret files relative to its folder', () => {
    dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-config-'));
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'token'), '  disk-token\n');
    writeFileSync(
      join(dir, 'config.yml'),
      'web_config_file: web.yml\nqstash:\n  - name: a\n    token_file: secrets/token\n',
    );
    const config = loadConfig({ configFile: join(dir, 'config.yml'), env: {} });
    expect(config.qstash[0]!.token.reveal()).toBe('disk-token');
    expect(config.webConfigFile).toBe(join(dir, 'web.yml'));
    expect(config.origin).toBe(join(dir, 'config.yml'));
  });

  test('a folder given as secret file is reported as such', () => {
    dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-config-'));
    writeFileSync(join(dir, 'config.yml'), 'qstash:\n  - name: a\n    token_file: .\n');
    const error = configError(() => loadConfig({ configFile: join(dir!, 'config.yml'), env: {} }));
    expect(lines(error)).toEqual([`qstash[0].token_file: cannot read ${dir}: is a directory`]);
  });
});

describe('found in review', () => {
  test('an environment base URL with a query is refused, and the query never printed', () => {
    const error = configError(() =>
      fromEnv({ QSTASH_TOKEN: 't', QSTASH_URL: 'https://q.example/?token=SECRETQ' }),
    );
    expect(error.problems).toEqual([{ path: 'QSTASH_URL', message: 'must not have a query or fragment' }]);
    expect(error.message).not.toContain('SECRETQ');
  });

  test('a credential with a newline or a space inside is refused, naming the field and not the value', () => {
    const error = configError(() => fromEnv({ QSTASH_TOKEN: 'abc\n' }));
    expect(error.problems).toEqual([
      { path: 'QSTASH_TOKEN', message: 'must not contain whitespace or control characters' },
    ]);
    const file = configError(() => fromYaml('qstash:\n  - name: eu\n    token: "ab cd"\n', {}));
    expect(file.problems).toEqual([
      { path: 'qstash[0].token', message: 'must not contain whitespace or control characters' },
    ]);
    expect(file.message).not.toContain('ab cd');
  });

  test('a YAML alias bomb is a configuration error, not a crash', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      lines.push(`${next}: &${next} [${Array.from({ length: 9 }, () => `*${prev}`).join(',')}]`);
    }
    const error = configError(() => fromYaml(lines.join('\n')));
    expect(error.problems).toEqual([{ path: CONFIG, message: 'expands YAML aliases too often to be read' }]);
  });
});

describe('configuration that validates but cannot work', () => {
  test('a timeout beyond what Node timers hold is refused, naming the field', () => {
    const error = configError(() => fromYaml(`${MINIMAL}http:\n  timeout: 600h\n`));
    expect(lines(error)).toEqual(['http.timeout: must be at most 1h']);
    expect(fromYaml(`${MINIMAL}http:\n  timeout: 1h\n`).http.timeoutMs).toBe(3_600_000);
  });

  test('a non-ASCII credential is refused, in the file, the environment and a secret file', () => {
    const file = configError(() => fromYaml('qstash:\n  - name: eu\n    token: "tøken"\n'));
    expect(lines(file)).toEqual(['qstash[0].token: must be ASCII: Upstash credentials are']);
    expect(file.message).not.toContain('tøken');
    const env = configError(() => fromEnv({ QSTASH_TOKEN: 'tøken' }));
    expect(lines(env)).toEqual(['QSTASH_TOKEN: must be ASCII: Upstash credentials are']);
    const secretFile = configError(() =>
      fromEnv({ QSTASH_TOKEN_FILE: '/run/secrets/q' }, { '/run/secrets/q': 'tøken\n' }),
    );
    expect(lines(secretFile)).toEqual([
      'QSTASH_TOKEN_FILE: the secret in /run/secrets/q must be ASCII: Upstash credentials are',
    ]);
  });

  test('http.max_response_size takes bytes, KiB or MiB within 1KiB..16MiB; the default is 8 MiB', () => {
    expect(fromYaml(MINIMAL).http.maxBodyBytes).toBe(8 * 1024 * 1024);
    expect(fromYaml(`${MINIMAL}http:\n  max_response_size: 2MiB\n`).http.maxBodyBytes).toBe(2 * 1024 * 1024);
    expect(fromYaml(`${MINIMAL}http:\n  max_response_size: 4096\n`).http.maxBodyBytes).toBe(4096);
    expect(fromYaml(`${MINIMAL}http:\n  max_response_size: 512KiB\n`).http.maxBodyBytes).toBe(512 * 1024);
    for (const [value, message] of [
      ['1GiB', 'must be a size in bytes, or with KiB or MiB, like 8MiB'],
      ['17MiB', 'must be from 1KiB to 16MiB'],
      ['100', 'must be from 1KiB to 16MiB'],
      ['-5', 'must be a size in bytes, or with KiB or MiB, like 8MiB'],
    ] as const) {
      const error = configError(() => fromYaml(`${MINIMAL}http:\n  max_response_size: ${value}\n`));
      expect(lines(error)).toEqual([`http.max_response_size: ${message}`]);
    }
  });
});

describe('sharding and log format', () => {
  const load = (yaml: string, flags: LoadOptions['flags'] = {}, hostname = 'exporter') =>
    loadConfig({ configFile: CONFIG, env: {}, flags, readFile: reader({ [CONFIG]: yaml }), hostname });

  test('unsharded and json by default', () => {
    const config = load(MINIMAL);
    expect(config.sharding).toEqual({ shard: 0, total: 1 });
    expect(config.logFormat).toBe('json');
  });

  test('the file sets them; a flag wins', () => {
    const yaml = `${MINIMAL}log_format: text\nsharding:\n  shard: 1\n  total: 3\n`;
    expect(load(yaml).sharding).toEqual({ shard: 1, total: 3 });
    expect(load(yaml).logFormat).toBe('text');
    const flagged = load(yaml, { shard: '2', totalShards: '4', logFormat: 'json' });
    expect(flagged.sharding).toEqual({ shard: 2, total: 4 });
    expect(flagged.logFormat).toBe('json');
  });

  test('auto reads the ordinal after the last dash of the host name, up to its first dot', () => {
    const config = load(MINIMAL, { shard: 'auto', totalShards: '3' }, 'upstash-exporter-2.exporters.svc');
    expect(config.sharding).toEqual({ shard: 2, total: 3 });
    expect(load(`${MINIMAL}sharding:\n  shard: auto\n  total: 5\n`, {}, 'x-4').sharding).toEqual({
      shard: 4,
      total: 5,
    });
  });

  test('auto without a number, N >= M, and non-integers are configuration errors', () => {
    expect(lines(configError(() => load(MINIMAL, { shard: 'auto', totalShards: '3' }, 'laptop')))).toEqual([
      '--shard: is auto, but the host name "laptop" does not end in -<number> (a StatefulSet pod name does)',
    ]);
    expect(lines(configError(() => load(MINIMAL, { shard: '3', totalShards: '3' })))).toEqual([
      '--shard: is 3, but shards are numbered from 0 to 2 (total 3)',
    ]);
    expect(lines(configError(() => load(MINIMAL, { shard: '1.5', totalShards: 'two' })))).toEqual([
      '--shard: must be a whole number or auto',
      '--total-shards: must be a whole number of at least 1',
    ]);
    expect(lines(configError(() => load(`${MINIMAL}sharding:\n  shard: 2\n  total: 2\n`)))).toEqual([
      'sharding.shard: is 2, but shards are numbered from 0 to 1 (total 2)',
    ]);
    expect(lines(configError(() => load(`${MINIMAL}sharding:\n  total: 0\n`)))).toEqual([
      'sharding.total: must be at least 1',
    ]);
    expect(lines(configError(() => load(MINIMAL, { logFormat: 'xml' })))).toEqual([
      '--log.format: must be one of json, text',
    ]);
  });

  test('a total beyond what the 32-bit shard hash can tell apart is a configuration error, flag or file', () => {
    const tooMany = 'must be at most 4294967296 (the shard hash has 32 bits)';
    expect(lines(configError(() => load(MINIMAL, { totalShards: '99999999999999999999' })))).toEqual([
      `--total-shards: ${tooMany}`,
    ]);
    expect(lines(configError(() => load(MINIMAL, { totalShards: '4294967297' })))).toEqual([
      `--total-shards: ${tooMany}`,
    ]);
    for (const total of ['99999999999999999999', '4294967297'])
      expect(lines(configError(() => load(`${MINIMAL}sharding:\n  total: ${total}\n`)))).toEqual([
        `sharding.total: ${tooMany}`,
      ]);
    // From ${VAR}, the same number and the same message.
    expect(
      lines(
        configError(() =>
          fromYaml(`${MINIMAL}sharding:\n  total: \${TOTAL}\n`, { env: { TOTAL: '99999999999999999999' } }),
        ),
      ),
    ).toEqual([`sharding.total: ${tooMany}`]);
    expect(load(MINIMAL, { shard: '4294967295', totalShards: '4294967296' }).sharding).toEqual({
      shard: 4294967295,
      total: 4294967296,
    });
  });
});

describe('management discovery, filters, sources and the command cap', () => {
  const entry = (extra: string): string =>
    `management:\n  - name: m\n    email: e@x\n    api_key: k\n${extra}`;

  test('without databases: discovery, with include/exclude and every default source', () => {
    const config = fromYaml(
      `limits:\n  max_commands_per_database: 7\n${entry('    include: ["prod-.*"]\n    exclude: [".*-scratch"]\n')}`,
    );
    expect(config.management[0]).toMatchObject({
      databases: undefined,
      include: ['prod-.*'],
      exclude: ['.*-scratch'],
      sources: ALL_MANAGEMENT_SOURCES,
    });
    expect(config.limits.maxCommandsPerDatabase).toBe(7);
  });

  test('RE2 syntax that JavaScript refuses or reads otherwise is accepted', () => {
    const config = fromYaml(
      entry('    include: ["(?i)prod-.*", "[[:digit:]]+", "\\\\pL+", "\\\\Qa.b\\\\E"]\n'),
    );
    expect(config.management[0]!.include).toEqual(['(?i)prod-.*', '[[:digit:]]+', '\\pL+', '\\Qa.b\\E']);
  });

  test('an invalid regex is an error naming it', () => {
    const error = configError(() => fromYaml(entry('    include: ["ok", "(unclosed"]\n')));
    expect(lines(error)).toEqual([
      'management[0].include[1]: is not a valid regular expression (RE2 syntax): missing closing )',
    ]);
  });

  test('include or exclude beside databases is an error', () => {
    const error = configError(() =>
      fromYaml(entry('    databases: [d]\n    include: [a]\n    exclude: [b]\n')),
    );
    expect(lines(error)).toEqual([
      'management[0].include: cannot be combined with databases: it filters discovered databases only',
      'management[0].exclude: cannot be combined with databases: it filters discovered databases only',
    ]);
  });

  test('without databases and without the databases source: an error', () => {
    const error = configError(() => fromYaml(entry('    sources: [redis_stats]\n')));
    expect(lines(error)).toEqual([
      'management[0].databases: is required when the databases source is not polled (it discovers the databases)',
    ]);
  });

  test('explicit databases with redis_stats alone, and an unknown source', () => {
    const config = fromYaml(entry('    databases: [d]\n    sources: [redis_stats]\n'));
    expect(config.management[0]).toMatchObject({ databases: ['d'], sources: ['redis_stats'] });
    const error = configError(() => fromYaml(entry('    sources: [databases, queues]\n')));
    expect(lines(error)).toEqual([
      'management[0].sources[1]: must be one of databases, redis_stats, redis_backups, qstash_users, qstash_stats, vector_indexes, vector_stats, search_indexes, search_stats, audit_logs, teams, qstash_egress_ips',
    ]);
  });

  test('max_commands_per_database must be at least 1', () => {
    const error = configError(() =>
      fromYaml(`limits:\n  max_commands_per_database: 0\n${entry('    databases: [d]\n')}`),
    );
    expect(lines(error)).toEqual(['limits.max_commands_per_database: must be at least 1']);
  });
});

describe('web_enable_lifecycle and metrics.allow/deny', () => {
  test('off and every family by default', () => {
    const config = fromYaml(MINIMAL);
    expect(config.webEnableLifecycle).toBe(false);
    expect(config.metrics).toEqual({ allow: [], deny: [] });
    expect(fromEnv({ QSTASH_TOKEN: 't' }).metrics).toEqual({ allow: [], deny: [] });
  });

  test('the file sets them; ${VAR} may give true or false', () => {
    const config = fromYaml(
      `${MINIMAL}web_enable_lifecycle: true\nmetrics:\n  allow: ["upstash_.*"]\n  deny: [upstash_up, "process_.*"]\n`,
    );
    expect(config.webEnableLifecycle).toBe(true);
    expect(config.metrics).toEqual({ allow: ['upstash_.*'], deny: ['upstash_up', 'process_.*'] });
    const expanded = fromYaml(`${MINIMAL}web_enable_lifecycle: \${LIFECYCLE}\n`, {
      env: { LIFECYCLE: 'true' },
    });
    expect(expanded.webEnableLifecycle).toBe(true);
    expect(lines(configError(() => fromYaml(`${MINIMAL}web_enable_lifecycle: "yes"\n`)))).toEqual([
      'web_enable_lifecycle: must be true or false',
    ]);
  });

  test('a flag wins over the file, list by list, in file and env-only mode alike', () => {
    const yaml = `${MINIMAL}metrics:\n  allow: ["upstash_.*"]\n  deny: [upstash_up]\n`;
    const config = fromYaml(yaml, {
      flags: { metricsAllow: ['upstash_redis_.*', 'nodejs_.*'], webEnableLifecycle: true },
    });
    expect(config.metrics).toEqual({ allow: ['upstash_redis_.*', 'nodejs_.*'], deny: ['upstash_up'] });
    expect(config.webEnableLifecycle).toBe(true);
    expect(fromYaml(yaml, { flags: { metricsDeny: ['x'] } }).metrics).toEqual({
      allow: ['upstash_.*'],
      deny: ['x'],
    });
    const env = loadConfig({
      configFile: undefined,
      env: { QSTASH_TOKEN: 't' },
      flags: { metricsDeny: ['process_.*'], webEnableLifecycle: true },
    });
    expect(env.metrics).toEqual({ allow: [], deny: ['process_.*'] });
    expect(env.webEnableLifecycle).toBe(true);
  });

  test('an invalid expression is an error naming it by its place, never quoting it', () => {
    const error = configError(() =>
      fromYaml(`${MINIMAL}metrics:\n  allow: [ok, "(unclosed-SECRETISH"]\n  deny: ["a)|(b"]\n  other: []\n`, {
        flags: { metricsDeny: ['fine', '[also-SECRETISH'] },
      }),
    );
    expect(lines(error)).toEqual([
      'metrics.allow[1]: is not a valid regular expression (RE2 syntax): missing closing )',
      'metrics.deny[0]: is not a valid regular expression (RE2 syntax): unexpected )',
      'metrics.other: is not a known key',
      '--metrics.deny[1]: is not a valid regular expression (RE2 syntax): invalid character class range',
    ]);
    expect(error.message).not.toContain('SECRETISH');
  });
});
