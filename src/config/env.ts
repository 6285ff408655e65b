import { checkBaseUrl } from './addresses.js';
import type { ConfigProblem } from './errors.js';
import type { ManagementInput, QstashInput } from './file-schema.js';
import { DEFAULTS } from './types.js';

// Env-only mode builds the raw document a YAML file would hold, so that the file's schema and
// resolution check it. Only what makes sense for variables alone is checked here: a variable set
// together with its _FILE variant, and the management settings that must come together.

/** The variable behind each key of the one entry per list that env-only mode builds. */
const VARIABLES = {
  qstash: { url: 'QSTASH_URL', token: 'QSTASH_TOKEN', token_file: 'QSTASH_TOKEN_FILE' },
  management: {
    url: 'UPSTASH_MANAGEMENT_URL',
    email: 'UPSTASH_EMAIL',
    api_key: 'UPSTASH_API_KEY',
    api_key_file: 'UPSTASH_API_KEY_FILE',
    databases: 'UPSTASH_REDIS_DATABASES',
  },
} as const;

/** The variable a document path such as `management[0].api_key_file` came from; other paths as they are. */
export function envVariable(path: string): string {
  const [, list, key] = /^(qstash|management)\[0\]\.([a-z_]+)/.exec(path) ?? [];
  if (list === undefined || key === undefined) return path;
  const variables: Readonly<Record<string, string | undefined>> = VARIABLES[list as keyof typeof VARIABLES];
  return variables[key] ?? path;
}

/** An entry as the environment gives it: any key may be missing, for the schema to report. */
type Draft<T> = { [K in keyof T]?: T[K] | undefined };

/** The raw document env-only mode builds: at most one entry per list. */
export interface EnvDocument {
  readonly qstash: Draft<QstashInput>[];
  readonly management: Draft<ManagementInput>[];
}

/** The raw document the environment describes; problems only env-only mode can have name variables. */
export function envDocument(env: NodeJS.ProcessEnv, problems: ConfigProblem[]): EnvDocument {
  // An empty variable counts as unset.
  const get = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);

  /** The secret inline or from a file, or neither (with a problem) when both variables are set. */
  const secret = (
    inline: string,
    file: string,
  ): { value?: string | undefined; file?: string | undefined } => {
    const value = get(inline);
    const path = get(file);
    if (value === undefined || path === undefined) return { value, file: path };
    problems.push({ path: inline, message: `cannot be combined with ${file}; set one of them` });
    return {};
  };

  /** A URL no entry uses is still checked: a typo must not wait until the token is set to show. */
  const checkUnusedUrl = (name: string): void => {
    const url = get(name);
    const problem = url === undefined ? undefined : checkBaseUrl(url);
    if (problem !== undefined) problems.push({ path: name, message: problem });
  };

  const Q = VARIABLES.qstash;
  const qstash: Draft<QstashInput>[] = [];
  if (get(Q.token) !== undefined || get(Q.token_file) !== undefined) {
    const token = secret(Q.token, Q.token_file);
    qstash.push({
      name: DEFAULTS.envAccount,
      url: get(Q.url),
      token: token.value,
      token_file: token.file,
      interval: DEFAULTS.qstashInterval,
    });
  } else checkUnusedUrl(Q.url);

  const M = VARIABLES.management;
  const management: Draft<ManagementInput>[] = [];
  const email = get(M.email);
  const hasKey = get(M.api_key) !== undefined || get(M.api_key_file) !== undefined;
  const databases = (get(M.databases) ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (email !== undefined || hasKey || databases.length > 0) {
    const apiKey = secret(M.api_key, M.api_key_file);
    if (email === undefined) {
      problems.push({
        path: M.email,
        message: 'is required for Redis stats (the account e-mail of the API key)',
      });
    }
    if (!hasKey)
      problems.push({ path: M.api_key, message: `is required for Redis stats (or ${M.api_key_file})` });
    // An incomplete entry still goes to the schema, so that its other problems show in this run; the
    // schema's own "is required" for a variable named above is dropped by the caller.
    management.push({
      name: DEFAULTS.envAccount,
      url: get(M.url),
      email,
      api_key: apiKey.value,
      api_key_file: apiKey.file,
      databases: databases.length === 0 ? undefined : databases,
      interval: DEFAULTS.managementInterval,
    });
  } else checkUnusedUrl(M.url);

  return { qstash, management };
}
