import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, describeFsError, type ConfigProblem } from './errors.js';
import { expandEnv } from './expand.js';
import { checkBaseUrl, checkListenAddress } from './addresses.js';
import {
  fileSchema,
  SECRET_KEYS,
  zodProblems,
  type ManagementEntry,
  type QstashEntry,
} from './file-schema.js';
import { scheduleFromInterval, type Schedule } from './schedule.js';
import { Secret, secretProblem } from './secret.js';
import { parseYaml } from './yaml.js';
import {
  DEFAULTS,
  LOG_LEVELS,
  QSTASH_SOURCES,
  type Config,
  type LogLevel,
  type ManagementAccount,
  type QstashAccount,
} from './types.js';

/** What the command line says; each set field wins over the file. */
export interface FlagOverrides {
  readonly listenAddress?: string | undefined;
  readonly logLevel?: string | undefined;
  readonly webConfigFile?: string | undefined;
}

/** Inputs to {@link loadConfig}; the file reader is injectable for tests. */
export interface LoadOptions {
  /** The YAML file; env-only mode when undefined. */
  readonly configFile: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly flags?: FlagOverrides;
  readonly readFile?: (path: string) => string;
}

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');

/**
 * Builds the validated configuration from flags, the YAML file (if any) and the environment.
 * Collects every problem before giving up, and throws a {@link ConfigError} listing them all.
 */
export function loadConfig(options: LoadOptions): Config {
  const problems: ConfigProblem[] = [];
  const read = options.readFile ?? readUtf8;
  const partial =
    options.configFile === undefined
      ? fromEnv(options.env, read, problems)
      : fromFile(options.configFile, options.env, read, problems);

  const common = commonSettings(options.flags ?? {}, partial, problems);
  if (problems.length === 0 && partial.qstash.length === 0 && partial.management.length === 0) {
    problems.push({
      path: '',
      message:
        options.configFile === undefined
          ? 'no source configured: set QSTASH_TOKEN (QStash), or UPSTASH_EMAIL, UPSTASH_API_KEY and UPSTASH_REDIS_DATABASES (Redis stats), or pass --config FILE'
          : 'no source configured: add a `qstash` or `management` entry',
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    ...common,
    http: partial.http,
    limits: partial.limits,
    qstash: partial.qstash,
    management: partial.management,
    origin: options.configFile === undefined ? 'environment' : resolve(options.configFile),
  };
}

/** The settings every mode shares: flags first, then the file, then defaults. */
type CommonSettings = Pick<Config, 'listenAddress' | 'logLevel' | 'webConfigFile'>;

function commonSettings(
  flags: FlagOverrides,
  file: {
    listenAddress: string | undefined;
    logLevel: string | undefined;
    webConfigFile: string | undefined;
  },
  problems: ConfigProblem[],
): CommonSettings {
  const listenAddress = flags.listenAddress ?? file.listenAddress ?? DEFAULTS.listenAddress;
  const listenProblem = checkListenAddress(listenAddress);
  if (listenProblem !== undefined) {
    problems.push({
      path: flags.listenAddress === undefined ? 'listen_address' : '--web.listen-address',
      message: listenProblem,
    });
  }
  const logLevel: string = flags.logLevel ?? file.logLevel ?? DEFAULTS.logLevel;
  if (!isLogLevel(logLevel)) {
    problems.push({
      path: flags.logLevel === undefined ? 'log_level' : '--log.level',
      message: `must be one of ${LOG_LEVELS.join(', ')}`,
    });
  }
  const webConfigFile = flags.webConfigFile === undefined ? file.webConfigFile : resolve(flags.webConfigFile);
  return { listenAddress, logLevel: isLogLevel(logLevel) ? logLevel : DEFAULTS.logLevel, webConfigFile };
}

/** The web and log settings from flags alone, for `--demo`, which has no file or environment. */
export function loadFlagSettings(flags: FlagOverrides): CommonSettings {
  const problems: ConfigProblem[] = [];
  const settings = commonSettings(
    flags,
    { listenAddress: undefined, logLevel: undefined, webConfigFile: undefined },
    problems,
  );
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

type Partial = Omit<Config, 'listenAddress' | 'logLevel' | 'origin'> & {
  listenAddress: string | undefined;
  logLevel: string | undefined;
};

const EMPTY: Partial = {
  listenAddress: undefined,
  logLevel: undefined,
  webConfigFile: undefined,
  http: DEFAULTS.http,
  limits: DEFAULTS.limits,
  qstash: [],
  management: [],
};

function fromFile(
  path: string,
  env: NodeJS.ProcessEnv,
  read: (path: string) => string,
  problems: ConfigProblem[],
): Partial {
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    problems.push({ path: '--config', message: `cannot read ${path}: ${describeFsError(error)}` });
    return EMPTY;
  }
  const raw = parseYaml(text, path, problems);
  if (raw === undefined) return EMPTY;
  const expansionProblems: ConfigProblem[] = [];
  const expanded = expandEnv(raw, env, expansionProblems);
  problems.push(...expansionProblems);
  // reportInput lets zodProblems tell a missing key from a wrong type; it never prints the input.
  const parsed = fileSchema.safeParse(expanded, { reportInput: true });
  if (!parsed.success) {
    // A value whose ${VAR} was unset is reported once, by name, not again as empty.
    const unset = new Set(expansionProblems.map((p) => p.path));
    problems.push(...zodProblems(parsed.error).filter((p) => !unset.has(p.path)));
    checkSecretFiles(expanded, dirname(resolve(path)), read, problems);
    return EMPTY;
  }
  if (expansionProblems.length > 0) return EMPTY;
  const file = parsed.data;
  const base = dirname(resolve(path));

  return {
    listenAddress: file.listen_address,
    logLevel: file.log_level,
    webConfigFile: file.web_config_file === undefined ? undefined : resolve(base, file.web_config_file),
    http: {
      timeoutMs: file.http?.timeout ?? DEFAULTS.http.timeoutMs,
      retries: file.http?.retries ?? DEFAULTS.http.retries,
      concurrency: file.http?.concurrency ?? DEFAULTS.http.concurrency,
    },
    limits: {
      maxFlowControlKeys: file.limits?.max_flow_control_keys ?? DEFAULTS.limits.maxFlowControlKeys,
      maxUrlGroups: file.limits?.max_url_groups ?? DEFAULTS.limits.maxUrlGroups,
    },
    qstash: resolveList(file.qstash ?? [], 'qstash', (entry, at) =>
      qstashAccount(entry, at, base, read, problems),
    ),
    management: resolveList(file.management ?? [], 'management', (entry, at) =>
      managementAccount(entry, at, base, read, problems),
    ),
  };
}

function resolveList<E, A>(
  entries: readonly E[],
  key: string,
  resolveEntry: (entry: E, at: string) => A | undefined,
): A[] {
  return entries.flatMap((entry, index) => resolveEntry(entry, `${key}[${index}]`) ?? []);
}

function qstashAccount(
  entry: QstashEntry,
  at: string,
  base: string,
  read: (path: string) => string,
  problems: ConfigProblem[],
): QstashAccount | undefined {
  const token = secretFrom(entry.token, entry.token_file, `${at}.token_file`, base, read, problems);
  if (token === undefined) return undefined;
  return {
    name: entry.name,
    url: trimSlash(entry.url ?? DEFAULTS.qstashUrl),
    token,
    schedule: entry.schedule,
    sources: entry.sources ?? QSTASH_SOURCES,
  };
}

function managementAccount(
  entry: ManagementEntry,
  at: string,
  base: string,
  read: (path: string) => string,
  problems: ConfigProblem[],
): ManagementAccount | undefined {
  const apiKey = secretFrom(entry.api_key, entry.api_key_file, `${at}.api_key_file`, base, read, problems);
  if (apiKey === undefined) return undefined;
  return {
    name: entry.name,
    url: trimSlash(entry.url ?? DEFAULTS.managementUrl),
    email: entry.email,
    apiKey,
    databases: entry.databases,
    schedule: entry.schedule,
  };
}

/**
 * Tries the secret files of a document that failed its schema, so that a missing file is reported
 * in the same run as the schema's problems rather than after they are fixed.
 */
function checkSecretFiles(
  document: unknown,
  base: string,
  read: (path: string) => string,
  problems: ConfigProblem[],
): void {
  const lists = document as Record<string, unknown> | null;
  for (const [list, key] of Object.entries(SECRET_KEYS)) {
    const entries = lists?.[list];
    if (!Array.isArray(entries)) continue;
    const field = `${key}_file`;
    entries.forEach((entry: unknown, index) => {
      const file = (entry as Record<string, unknown> | null)?.[field];
      if (typeof file === 'string' && file !== '')
        secretFromFile(resolve(base, file), `${list}[${index}].${field}`, read, problems);
    });
  }
}

/** A secret given inline or in a file (the schema ensures exactly one); paths are relative to `base`. */
function secretFrom(
  inline: string | undefined,
  file: string | undefined,
  field: string,
  base: string,
  read: (path: string) => string,
  problems: ConfigProblem[],
): Secret | undefined {
  if (inline !== undefined) return new Secret(inline);
  if (file === undefined) return undefined;
  return secretFromFile(resolve(base, file), field, read, problems);
}

function secretFromFile(
  path: string,
  field: string,
  read: (path: string) => string,
  problems: ConfigProblem[],
): Secret | undefined {
  let value: string;
  try {
    value = read(path).trim();
  } catch (error) {
    problems.push({ path: field, message: `cannot read ${path}: ${describeFsError(error)}` });
    return undefined;
  }
  if (value === '') {
    problems.push({ path: field, message: `${path} is empty` });
    return undefined;
  }
  const problem = secretProblem(value);
  if (problem !== undefined) {
    problems.push({ path: field, message: `the secret in ${path} ${problem}` });
    return undefined;
  }
  return new Secret(value);
}

function fromEnv(env: NodeJS.ProcessEnv, read: (path: string) => string, problems: ConfigProblem[]): Partial {
  const get = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const envSecret = (name: string): Secret | undefined => {
    const inline = get(name);
    const file = get(`${name}_FILE`);
    if (inline !== undefined && file !== undefined) {
      problems.push({ path: name, message: `cannot be combined with ${name}_FILE; set one of them` });
      return undefined;
    }
    if (file !== undefined) return secretFromFile(resolve(file), `${name}_FILE`, read, problems);
    if (inline === undefined) return undefined;
    const problem = secretProblem(inline);
    if (problem === undefined) return new Secret(inline);
    problems.push({ path: name, message: problem });
    return undefined;
  };
  const envUrl = (name: string, fallback: string): string => {
    const value = get(name) ?? fallback;
    const problem = checkBaseUrl(value);
    if (problem !== undefined) problems.push({ path: name, message: problem });
    return trimSlash(value);
  };

  const qstash: QstashAccount[] = [];
  const token = envSecret('QSTASH_TOKEN');
  const qstashUrl = envUrl('QSTASH_URL', DEFAULTS.qstashUrl);
  if (token !== undefined) {
    const schedule = scheduleFromInterval(DEFAULTS.qstashInterval) as Schedule;
    qstash.push({ name: DEFAULTS.envAccount, url: qstashUrl, token, schedule, sources: QSTASH_SOURCES });
  }

  const management: ManagementAccount[] = [];
  const email = get('UPSTASH_EMAIL');
  const apiKey = envSecret('UPSTASH_API_KEY');
  const managementUrl = envUrl('UPSTASH_MANAGEMENT_URL', DEFAULTS.managementUrl);
  const databases = (get('UPSTASH_REDIS_DATABASES') ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const anyManagement = email !== undefined || apiKey !== undefined || databases.length > 0;
  if (anyManagement) {
    if (email === undefined)
      problems.push({
        path: 'UPSTASH_EMAIL',
        message: 'is required for Redis stats (the account e-mail of the API key)',
      });
    if (apiKey === undefined && !problems.some((p) => p.path.startsWith('UPSTASH_API_KEY'))) {
      problems.push({
        path: 'UPSTASH_API_KEY',
        message: 'is required for Redis stats (or UPSTASH_API_KEY_FILE)',
      });
    }
    if (databases.length === 0) {
      problems.push({
        path: 'UPSTASH_REDIS_DATABASES',
        message:
          'is required for Redis stats: a comma-separated list of database IDs, e.g. UPSTASH_REDIS_DATABASES=id-1,id-2',
      });
    } else if (new Set(databases).size !== databases.length) {
      problems.push({ path: 'UPSTASH_REDIS_DATABASES', message: 'lists a database ID twice' });
    }
    if (email !== undefined && apiKey !== undefined && databases.length > 0) {
      const schedule = scheduleFromInterval(DEFAULTS.managementInterval) as Schedule;
      management.push({ name: DEFAULTS.envAccount, url: managementUrl, email, apiKey, databases, schedule });
    }
  }
  return { ...EMPTY, qstash, management };
}

function isLogLevel(level: string): level is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(level);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
