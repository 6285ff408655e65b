import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { envDocument, envVariable } from '../../src/config/env.js';
import { ConfigError, type ConfigProblem } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { parseYaml } from '../../src/config/yaml.js';

// Env-only mode builds the document a YAML file would hold and runs it through the file's schema and
// resolution; these tests pin that, and that every problem still names the variable.

type Files = Record<string, string>;

function reader(files: Files): (path: string) => string {
  return (path) => {
    const content = files[path];
    if (content === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return content;
  };
}

const fromEnv = (env: NodeJS.ProcessEnv, files: Files = {}): Config =>
  loadConfig({ configFile: undefined, env, readFile: reader(files) });

/** The problems of a configuration that must fail, as `path: message` lines. */
function problemLines(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  expect.unreachable('the configuration was accepted');
}

const FULL_ENV = {
  QSTASH_TOKEN: 'qs-secret',
  QSTASH_URL: 'https://qstash-eu.example.com/',
  UPSTASH_EMAIL: 'ops@example.com',
  UPSTASH_API_KEY_FILE: '/run/secrets/api-key',
  UPSTASH_MANAGEMENT_URL: 'https://mgmt.example.com',
  UPSTASH_REDIS_DATABASES: 'db-1, db-2',
};

const EQUIVALENT_YAML = `
qstash:
  - name: default
    url: https://qstash-eu.example.com/
    token: qs-secret
    interval: 30s
management:
  - name: default
    url: https://mgmt.example.com
    email: ops@example.com
    api_key_file: /run/secrets/api-key
    databases: [db-1, db-2]
    interval: 60s
`;

describe('the document env-only mode builds', () => {
  test('is the one the equivalent YAML file holds', () => {
    const problems: ConfigProblem[] = [];
    expect(envDocument(FULL_ENV, problems)).toEqual(parseYaml(EQUIVALENT_YAML, 'inline', []));
    expect(problems).toEqual([]);
  });

  test('and loads into the same configuration as that file', () => {
    const files = { '/run/secrets/api-key': 'api-secret\n' };
    const env = fromEnv(FULL_ENV, files);
    const file = loadConfig({
      configFile: '/etc/config.yml',
      env: {},
      readFile: reader({ ...files, '/etc/config.yml': EQUIVALENT_YAML }),
    });
    expect({ ...env, origin: '' }).toEqual({ ...file, origin: '' });
    expect(env.management[0]!.apiKey.reveal()).toBe('api-secret');
  });

  test('has no entry for a list none of whose enabling variables is set', () => {
    expect(envDocument({ QSTASH_URL: 'https://q.example', PATH: '/bin' }, [])).toEqual({
      qstash: [],
      management: [],
    });
  });
});

describe('problems the schema finds name the environment variable', () => {
  test.each([
    ['qstash[0].url', 'QSTASH_URL'],
    ['qstash[0].token', 'QSTASH_TOKEN'],
    ['qstash[0].token_file', 'QSTASH_TOKEN_FILE'],
    ['management[0].url', 'UPSTASH_MANAGEMENT_URL'],
    ['management[0].email', 'UPSTASH_EMAIL'],
    ['management[0].api_key', 'UPSTASH_API_KEY'],
    ['management[0].api_key_file', 'UPSTASH_API_KEY_FILE'],
    ['management[0].databases', 'UPSTASH_REDIS_DATABASES'],
    ['management[0].databases[1]', 'UPSTASH_REDIS_DATABASES'],
    ['listen_address', 'listen_address'],
  ])('%s → %s', (path, variable) => {
    expect(envVariable(path)).toBe(variable);
  });

  test('a credential with whitespace, inline or in a file', () => {
    expect(
      problemLines(() =>
        fromEnv(
          {
            QSTASH_TOKEN_FILE: '/s',
            UPSTASH_EMAIL: 'e@x',
            UPSTASH_API_KEY: 'a b',
            UPSTASH_REDIS_DATABASES: 'd',
          },
          { '/s': 'to ken' },
        ),
      ),
    ).toEqual([
      'UPSTASH_API_KEY: must not contain whitespace or control characters',
      'QSTASH_TOKEN_FILE: the secret in /s must not contain whitespace or control characters',
    ]);
  });

  test('an unreadable UPSTASH_API_KEY_FILE', () => {
    expect(
      problemLines(() =>
        fromEnv({ UPSTASH_EMAIL: 'e@x', UPSTASH_API_KEY_FILE: '/nope', UPSTASH_REDIS_DATABASES: 'd' }),
      ),
    ).toEqual(['UPSTASH_API_KEY_FILE: cannot read /nope: no such file']);
  });

  test('missing management settings and the schema problems of the others show in one run', () => {
    expect(
      problemLines(() =>
        fromEnv({
          UPSTASH_API_KEY_FILE: '/nope',
          UPSTASH_MANAGEMENT_URL: 'ftp://mgmt.example.com',
          UPSTASH_REDIS_DATABASES: 'a,b,a',
        }),
      ),
    ).toEqual([
      'UPSTASH_EMAIL: is required for Redis stats (the account e-mail of the API key)',
      'UPSTASH_MANAGEMENT_URL: must be an absolute http:// or https:// URL',
      'UPSTASH_REDIS_DATABASES: lists a database ID twice',
      'UPSTASH_API_KEY_FILE: cannot read /nope: no such file',
    ]);
  });

  test('UPSTASH_API_KEY with UPSTASH_API_KEY_FILE is one problem, not also a missing key', () => {
    expect(
      problemLines(() =>
        fromEnv({
          UPSTASH_EMAIL: 'e@x',
          UPSTASH_API_KEY: 'k',
          UPSTASH_API_KEY_FILE: '/k',
          UPSTASH_REDIS_DATABASES: 'd',
        }),
      ),
    ).toEqual(['UPSTASH_API_KEY: cannot be combined with UPSTASH_API_KEY_FILE; set one of them']);
  });
});

describe('env-only details', () => {
  test('a base URL without its token or credentials is unused, but still checked', () => {
    const qstashOnly = { QSTASH_TOKEN: 't' };
    expect(fromEnv({ ...qstashOnly, UPSTASH_MANAGEMENT_URL: 'https://m.example' }).management).toEqual([]);
    expect(problemLines(() => fromEnv({ ...qstashOnly, UPSTASH_MANAGEMENT_URL: 'm.example' }))).toEqual([
      'UPSTASH_MANAGEMENT_URL: must be an absolute http:// or https:// URL',
    ]);
    expect(
      problemLines(() =>
        fromEnv({
          UPSTASH_EMAIL: 'e@x',
          UPSTASH_API_KEY: 'k',
          UPSTASH_REDIS_DATABASES: 'd',
          QSTASH_URL: 'x',
        }),
      ),
    ).toEqual(['QSTASH_URL: must be an absolute http:// or https:// URL']);
  });

  test('a relative *_FILE path is relative to the current folder', () => {
    const config = fromEnv({ QSTASH_TOKEN_FILE: 'secrets/token' }, { [resolve('secrets/token')]: 'tok' });
    expect(config.qstash[0]!.token.reveal()).toBe('tok');
  });
});
