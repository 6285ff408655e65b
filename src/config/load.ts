import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { regexProblem } from '../metrics/relabel-regex.js';
import { checkListenAddress, checkTelemetryPath } from './addresses.js';
import { envDocument, envVariable } from './env.js';
import { ConfigError, describeFsError, type ConfigProblem } from './errors.js';
import { expandEnv } from './expand.js';
import { fileSchema, numberKeys } from './file-schema.js';
import { expectedType, zodProblems } from './schema-problems.js';
import { MAX_TOTAL_SHARDS, TOO_MANY_SHARDS } from './values.js';
import { checkSecretFiles, resolveDocument, type Files, type Resolved } from './resolve.js';
import { parseYaml } from './yaml.js';
import { DEFAULTS, LOG_FORMATS, LOG_LEVELS, type Config } from './types.js';

/** What the command line says; each set field wins over the file. */
export interface FlagOverrides {
  readonly listenAddress?: string | undefined;
  /** `--web.telemetry-path`; a flag only, as node_exporter's. */
  readonly telemetryPath?: string | undefined;
  readonly logLevel?: string | undefined;
  readonly logFormat?: string | undefined;
  readonly webConfigFile?: string | undefined;
  /** `--web.enable-lifecycle`: true when given. */
  readonly webEnableLifecycle?: boolean | undefined;
  /** `--metrics.allow`, each time it is given; when given, the file's list is not read. */
  readonly metricsAllow?: readonly string[] | undefined;
  readonly metricsDeny?: readonly string[] | undefined;
  /** `--shard`: a number or `auto`. */
  readonly shard?: string | undefined;
  readonly totalShards?: string | undefined;
}

/** Inputs to {@link loadConfig}; the file reader is injectable for tests. */
export interface LoadOptions {
  /** The YAML file; env-only mode when undefined. */
  readonly configFile: string | undefined;
  readonly env: NodeJS.ProcessEnv;
  readonly flags?: FlagOverrides;
  readonly readFile?: (path: string) => string;
  /** The host name `--shard auto` reads its ordinal from; `os.hostname()` unless a test says. */
  readonly hostname?: string;
}

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');

/**
 * Builds the validated configuration from flags, the YAML file (if any) and the environment.
 * Collects every problem before giving up, and throws a {@link ConfigError} listing them all.
 */
export function loadConfig(options: LoadOptions): Config {
  const problems: ConfigProblem[] = [];
  const read = options.readFile ?? readUtf8;
  const document =
    options.configFile === undefined
      ? fromEnv(options.env, read, problems)
      : fromFile(options.configFile, options.env, read, problems);

  const common = commonSettings(options.flags ?? {}, document, options.hostname ?? hostname(), problems);
  if (problems.length === 0 && document.qstash.length === 0 && document.management.length === 0) {
    problems.push({
      path: '',
      message:
        options.configFile === undefined
          ? 'no source configured: set QSTASH_TOKEN (QStash), or UPSTASH_EMAIL and UPSTASH_API_KEY (Redis databases and stats), or pass --config FILE'
          : 'no source configured: add a `qstash` or `management` entry',
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    ...common,
    http: document.http,
    limits: document.limits,
    qstash: document.qstash,
    management: document.management,
    origin: options.configFile === undefined ? 'environment' : resolve(options.configFile),
  };
}

/** The settings every mode shares: flags first, then the file, then defaults. */
export type CommonSettings = Pick<
  Config,
  | 'listenAddress'
  | 'telemetryPath'
  | 'logLevel'
  | 'logFormat'
  | 'webConfigFile'
  | 'webEnableLifecycle'
  | 'metrics'
  | 'sharding'
>;

function commonSettings(
  flags: FlagOverrides,
  // Every common setting but the telemetry path, a flag only (as node_exporter's).
  file: Pick<Resolved, Exclude<keyof CommonSettings, 'telemetryPath'>>,
  host: string,
  problems: ConfigProblem[],
): CommonSettings {
  // The file's values have passed the schema; only the flags are checked here.
  if (flags.listenAddress !== undefined) {
    const problem = checkListenAddress(flags.listenAddress);
    if (problem !== undefined) problems.push({ path: '--web.listen-address', message: problem });
  }
  if (flags.telemetryPath !== undefined) {
    const problem = checkTelemetryPath(flags.telemetryPath);
    if (problem !== undefined) problems.push({ path: '--web.telemetry-path', message: problem });
  }
  const flagLevel = oneOf(flags.logLevel, LOG_LEVELS, '--log.level', problems);
  const flagFormat = oneOf(flags.logFormat, LOG_FORMATS, '--log.format', problems);
  return {
    listenAddress: flags.listenAddress ?? file.listenAddress ?? DEFAULTS.listenAddress,
    telemetryPath: flags.telemetryPath ?? DEFAULTS.telemetryPath,
    logLevel: flagLevel ?? file.logLevel ?? DEFAULTS.logLevel,
    logFormat: flagFormat ?? file.logFormat ?? DEFAULTS.logFormat,
    webConfigFile: flags.webConfigFile === undefined ? file.webConfigFile : resolve(flags.webConfigFile),
    webEnableLifecycle: flags.webEnableLifecycle ?? file.webEnableLifecycle ?? false,
    metrics: {
      allow: flagPatterns(flags.metricsAllow, '--metrics.allow', problems) ?? file.metrics?.allow ?? [],
      deny: flagPatterns(flags.metricsDeny, '--metrics.deny', problems) ?? file.metrics?.deny ?? [],
    },
    sharding: sharding(flags, file.sharding, host, problems),
  };
}

/** A repeatable pattern flag's values, each checked (named by its place, never quoted); undefined when not given. */
function flagPatterns(
  values: readonly string[] | undefined,
  flag: string,
  problems: ConfigProblem[],
): readonly string[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  values.forEach((pattern, index) => {
    const problem = regexProblem(pattern);
    if (problem !== undefined) problems.push({ path: `${flag}[${index}]`, message: problem });
  });
  return values;
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
  problems: ConfigProblem[],
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  problems.push({ path: flag, message: `must be one of ${allowed.join(', ')}` });
  return undefined;
}

/**
 * This process's shard: flags win over the file. `auto` takes the number after the last `-` of the
 * host name up to its first `.` (a StatefulSet pod `upstash-exporter-2` is shard 2).
 */
function sharding(
  flags: FlagOverrides,
  file: Resolved['sharding'],
  host: string,
  problems: ConfigProblem[],
): Config['sharding'] {
  const fallback = DEFAULTS.sharding;
  const wholeNumber = (text: string, flag: string, min: number, max = Infinity): number | undefined => {
    if (/^[0-9]+$/.test(text) && Number(text) >= min) {
      if (Number(text) <= max) return Number(text);
      problems.push({ path: flag, message: TOO_MANY_SHARDS });
      return undefined;
    }
    problems.push({
      path: flag,
      message: min === 0 ? 'must be a whole number or auto' : 'must be a whole number of at least 1',
    });
    return undefined;
  };
  const shardPath = flags.shard === undefined ? 'sharding.shard' : '--shard';
  let shard: number | 'auto' | undefined =
    flags.shard === undefined
      ? (file?.shard ?? DEFAULTS.sharding.shard)
      : flags.shard === 'auto'
        ? 'auto'
        : wholeNumber(flags.shard, '--shard', 0);
  const total =
    flags.totalShards === undefined
      ? (file?.total ?? DEFAULTS.sharding.total)
      : wholeNumber(flags.totalShards, '--total-shards', 1, MAX_TOTAL_SHARDS);
  if (shard === 'auto') {
    const name = host.split('.')[0] ?? '';
    const ordinal = /-([0-9]+)$/.exec(name)?.[1];
    if (ordinal === undefined) {
      problems.push({
        path: shardPath,
        message: `is auto, but the host name ${JSON.stringify(name)} does not end in -<number> (a StatefulSet pod name does)`,
      });
      return fallback;
    }
    shard = Number(ordinal);
  }
  if (shard === undefined || total === undefined) return fallback;
  if (shard >= total) {
    problems.push({
      path: shardPath,
      message: `is ${shard}, but shards are numbered from 0 to ${total - 1} (total ${total})`,
    });
    return fallback;
  }
  return { shard, total };
}

/** The web and log settings from flags alone, for `--demo`, which has no file or environment. */
export function loadFlagSettings(flags: FlagOverrides): CommonSettings {
  const problems: ConfigProblem[] = [];
  const settings = commonSettings(flags, EMPTY, hostname(), problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

/** What a document that could not be resolved contributes: nothing but defaults. */
const EMPTY: Resolved = {
  listenAddress: undefined,
  logLevel: undefined,
  logFormat: undefined,
  webConfigFile: undefined,
  webEnableLifecycle: undefined,
  metrics: undefined,
  sharding: undefined,
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
): Resolved {
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
  const expanded = expandEnv(raw, env, expansionProblems, numberKeys());
  // Relative paths in the file are relative to its folder.
  const files = { base: dirname(resolve(path)), read };
  return fromDocument(expanded, files, (field) => field, expansionProblems, problems);
}

function fromEnv(
  env: NodeJS.ProcessEnv,
  read: (path: string) => string,
  problems: ConfigProblem[],
): Resolved {
  const envProblems: ConfigProblem[] = [];
  const document = envDocument(env, envProblems);
  // Relative *_FILE paths are relative to the current folder.
  return fromDocument(document, { base: resolve(), read }, envVariable, envProblems, problems);
}

/**
 * Checks a raw document against the schema and resolves it. `name` turns a document path into what
 * the user wrote (the path itself, or an environment variable). A field already named in `reported`
 * is not reported again: a `${VAR}` left unset is not also "must not be empty".
 */
function fromDocument(
  document: unknown,
  files: Files,
  name: (path: string) => string,
  reported: readonly ConfigProblem[],
  problems: ConfigProblem[],
): Resolved {
  const found: ConfigProblem[] = [];
  // reportInput lets zodProblems tell a missing key from a wrong type; it never prints the input.
  const parsed = fileSchema.safeParse(document, { reportInput: true, error: expectedType });
  let resolved = EMPTY;
  if (parsed.success) {
    resolved = resolveDocument(parsed.data, files, found);
  } else {
    found.push(...zodProblems(parsed.error, fileSchema));
    checkSecretFiles(document, files, found);
  }
  const named = new Set(reported.map((p) => p.path));
  problems.push(...reported);
  for (const problem of found) {
    const path = name(problem.path);
    if (!named.has(path)) problems.push({ path, message: problem.message });
  }
  return resolved;
}
