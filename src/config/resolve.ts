import { resolve } from 'node:path';
import { describeFsError, type ConfigProblem } from './errors.js';
import { SECRET_KEYS, type FileConfig, type ManagementEntry, type QstashEntry } from './file-schema.js';
import { Secret, secretProblem } from './secret.js';
import { LIMITS } from '../vocabulary.js';
import {
  DEFAULTS,
  MANAGEMENT_DEFAULT_SOURCES,
  QSTASH_DEFAULT_SOURCES,
  type HttpSettings,
  type Limits,
  type ManagementAccount,
  type QstashAccount,
} from './types.js';

// What the schema cannot do alone: read secret files, resolve paths, fill in defaults. Problems are
// reported at the document's paths (`qstash[0].token_file`); the caller names them for the user.

/** Where relative paths start (the config file's folder, or the current one) and how files are read. */
export interface Files {
  readonly base: string;
  readonly read: (path: string) => string;
}

/** Everything a document the schema accepted says, resolved. */
export interface Resolved {
  readonly listenAddress: string | undefined;
  readonly logLevel: FileConfig['log_level'];
  readonly logFormat: FileConfig['log_format'];
  readonly sharding: FileConfig['sharding'];
  readonly webConfigFile: string | undefined;
  readonly webEnableLifecycle: boolean | undefined;
  readonly metrics: FileConfig['metrics'];
  readonly http: HttpSettings;
  readonly limits: Limits;
  readonly qstash: readonly QstashAccount[];
  readonly management: readonly ManagementAccount[];
}

/** Resolves a document the schema accepted; an entry whose secret file fails is left out, with a problem. */
export function resolveDocument(file: FileConfig, files: Files, problems: ConfigProblem[]): Resolved {
  return {
    listenAddress: file.listen_address,
    logLevel: file.log_level,
    logFormat: file.log_format,
    sharding: file.sharding,
    webConfigFile: file.web_config_file === undefined ? undefined : resolve(files.base, file.web_config_file),
    webEnableLifecycle: file.web_enable_lifecycle,
    metrics: file.metrics,
    http: {
      timeoutMs: file.http?.timeout ?? DEFAULTS.http.timeoutMs,
      retries: file.http?.retries ?? DEFAULTS.http.retries,
      concurrency: file.http?.concurrency ?? DEFAULTS.http.concurrency,
      maxBodyBytes: file.http?.max_response_size ?? DEFAULTS.http.maxBodyBytes,
    },
    limits: Object.fromEntries(
      Object.entries(LIMITS).map(([name, limit]) => [name, file.limits?.[limit.file] ?? limit.default]),
    ) as Limits,
    qstash: resolveList(file.qstash ?? [], 'qstash', (entry, at) =>
      qstashAccount(entry, at, files, problems),
    ),
    management: resolveList(file.management ?? [], 'management', (entry, at) =>
      managementAccount(entry, at, files, problems),
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
  files: Files,
  problems: ConfigProblem[],
): QstashAccount | undefined {
  const token = secretFrom(entry.token, entry.token_file, `${at}.token_file`, files, problems);
  if (token === undefined) return undefined;
  return {
    name: entry.name,
    url: trimSlash(entry.url ?? DEFAULTS.qstashUrl),
    token,
    schedule: entry.schedule,
    sources: entry.sources ?? QSTASH_DEFAULT_SOURCES,
    ownSchedules: entry.ownSchedules,
    workflowLookbackMs: entry.workflow_lookback ?? DEFAULTS.workflowLookback.defaultMs,
    labels: entry.labels ?? [],
    exemplars: entry.exemplars ?? true,
  };
}

function managementAccount(
  entry: ManagementEntry,
  at: string,
  files: Files,
  problems: ConfigProblem[],
): ManagementAccount | undefined {
  const apiKey = secretFrom(entry.api_key, entry.api_key_file, `${at}.api_key_file`, files, problems);
  if (apiKey === undefined) return undefined;
  return {
    name: entry.name,
    url: trimSlash(entry.url ?? DEFAULTS.managementUrl),
    email: entry.email,
    apiKey,
    databases: entry.databases,
    include: entry.include ?? [],
    exclude: entry.exclude ?? [],
    schedule: entry.schedule,
    sources: entry.sources ?? MANAGEMENT_DEFAULT_SOURCES,
    ownSchedules: entry.ownSchedules,
  };
}

/**
 * Tries the secret files of a document that failed its schema, so that a missing file is reported
 * in the same run as the schema's problems rather than after they are fixed.
 */
export function checkSecretFiles(document: unknown, files: Files, problems: ConfigProblem[]): void {
  const lists = document as Record<string, unknown> | null;
  for (const [list, key] of Object.entries(SECRET_KEYS)) {
    const entries = lists?.[list];
    if (!Array.isArray(entries)) continue;
    const field = `${key}_file`;
    entries.forEach((entry: unknown, index) => {
      const file = (entry as Record<string, unknown> | null)?.[field];
      if (typeof file === 'string' && file !== '')
        secretFromFile(resolve(files.base, file), `${list}[${index}].${field}`, files, problems);
    });
  }
}

/** A secret given inline or in a file (the schema ensures exactly one); paths are relative to `base`. */
function secretFrom(
  inline: string | undefined,
  file: string | undefined,
  field: string,
  files: Files,
  problems: ConfigProblem[],
): Secret | undefined {
  if (inline !== undefined) return new Secret(inline);
  if (file === undefined) return undefined;
  return secretFromFile(resolve(files.base, file), field, files, problems);
}

/** A secret read from a file, surrounding whitespace trimmed; a problem at `field` when it cannot be. */
function secretFromFile(
  path: string,
  field: string,
  files: Files,
  problems: ConfigProblem[],
): Secret | undefined {
  let value: string;
  try {
    value = files.read(path).trim();
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

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
