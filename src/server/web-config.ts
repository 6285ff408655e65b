import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, describeFsError, type ConfigProblem } from '../config/errors.js';
import { expectedType, zodProblems } from '../config/schema-problems.js';
import { parseYaml } from '../config/yaml.js';

// The exporter-toolkit web configuration (the `--web.config.file` of node_exporter and friends), so
// that a file written for another Prometheus exporter works here unchanged. Keys this exporter does not
// implement are errors, like unknown keys: a security setting must never be ignored silently.

/** How the server treats client certificates; the names and meanings of Go's `tls.ClientAuthType`. */
const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
export type ClientAuthType = (typeof CLIENT_AUTH_TYPES)[number];

const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
type TlsVersionName = keyof typeof TLS_VERSIONS;
type TlsVersion = (typeof TLS_VERSIONS)[TlsVersionName];

/** The security headers exporter-toolkit allows in `http_server_config.headers`. */
const ALLOWED_HEADERS = [
  'Cache-Control',
  'Content-Security-Policy',
  'Strict-Transport-Security',
  'X-Content-Type-Options',
  'X-Frame-Options',
  'X-XSS-Protection',
];

/** TLS settings, file paths absolute. */
interface TlsSettings {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientCaFile: string | undefined;
  readonly clientAuthType: ClientAuthType;
  readonly minVersion: TlsVersion;
  readonly maxVersion: TlsVersion | undefined;
}

/** The validated web configuration. */
export interface WebConfig {
  readonly tls: TlsSettings | undefined;
  /** User name → bcrypt hash; empty when basic auth is off. */
  readonly users: ReadonlyMap<string, string>;
  /** Extra response headers, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
}

/** No TLS, no auth, no headers: what the exporter does without `--web.config.file`. */
export const OPEN_WEB_CONFIG: WebConfig = { tls: undefined, users: new Map(), headers: {} };

const version = z.enum(Object.keys(TLS_VERSIONS) as [TlsVersionName, ...TlsVersionName[]]);
const BCRYPT = /^\$2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}$/;

const schema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert_file: z.string().min(1, 'must not be empty'),
      key_file: z.string().min(1, 'must not be empty'),
      client_auth_type: z.enum(CLIENT_AUTH_TYPES).optional(),
      client_ca_file: z.string().min(1, 'must not be empty').optional(),
      min_version: version.optional(),
      max_version: version.optional(),
    })
    .optional(),
  http_server_config: z
    .strictObject({
      // Accepted for compatibility; HTTP/2 is not served, so it has no effect.
      http2: z.boolean().optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  basic_auth_users: z
    .record(
      z.string().min(1, 'user names must not be empty'),
      // Never echo the value: a plain password typed here by mistake is a secret.
      z
        .string()
        .regex(BCRYPT, 'must be a bcrypt hash ($2a$, $2b$ or $2y$), e.g. from `htpasswd -nBC 10 USER`'),
    )
    .nullable()
    .optional(),
});

/**
 * Parses and validates a web configuration. Relative file paths are resolved against `baseDir` and
 * the TLS files are checked for readability; every problem is collected into one {@link ConfigError}
 * whose messages name the key but never quote a value.
 */
export function parseWebConfig(
  text: string,
  source: string,
  baseDir: string,
  read: (path: string) => string | Buffer = readFileSync,
): WebConfig {
  const problems: ConfigProblem[] = [];
  const raw = parseYaml(text, source, problems);
  if (raw === undefined) throw new ConfigError(problems);
  const parsed = schema.safeParse(raw, { reportInput: true, error: expectedType });
  if (!parsed.success) {
    throw new ConfigError(
      zodProblems(parsed.error, schema).map((p) => ({ path: `${source}: ${p.path}`, message: p.message })),
    );
  }
  const file = parsed.data;
  const at = (key: string): string => `${source}: ${key}`;

  let tls: TlsSettings | undefined;
  const t = file.tls_server_config;
  if (t !== undefined) {
    const clientAuthType = t.client_auth_type ?? 'NoClientCert';
    const verifies =
      clientAuthType === 'VerifyClientCertIfGiven' || clientAuthType === 'RequireAndVerifyClientCert';
    if (verifies && t.client_ca_file === undefined) {
      problems.push({
        path: at('tls_server_config.client_ca_file'),
        message: `is required with client_auth_type ${clientAuthType}`,
      });
    }
    const minVersion = TLS_VERSIONS[t.min_version ?? 'TLS12'];
    const maxVersion = t.max_version === undefined ? undefined : TLS_VERSIONS[t.max_version];
    if (maxVersion !== undefined && maxVersion < minVersion) {
      problems.push({ path: at('tls_server_config.max_version'), message: 'must not be below min_version' });
    }
    const files = {
      cert_file: resolve(baseDir, t.cert_file),
      key_file: resolve(baseDir, t.key_file),
      client_ca_file: t.client_ca_file === undefined ? undefined : resolve(baseDir, t.client_ca_file),
    };
    for (const [key, path] of Object.entries(files)) {
      if (path === undefined) continue;
      try {
        read(path);
      } catch (error) {
        problems.push({
          path: at(`tls_server_config.${key}`),
          message: `cannot read ${path}: ${describeFsError(error)}`,
        });
      }
    }
    tls = {
      certFile: files.cert_file,
      keyFile: files.key_file,
      clientCaFile: files.client_ca_file,
      clientAuthType,
      minVersion,
      maxVersion,
    };
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(file.http_server_config?.headers ?? {})) {
    const known = ALLOWED_HEADERS.find((h) => h.toLowerCase() === name.toLowerCase());
    if (known === undefined) {
      problems.push({
        path: at(`http_server_config.headers.${name}`),
        message: `is not a header that may be set; allowed: ${ALLOWED_HEADERS.join(', ')}`,
      });
    } else if (/[\r\n\0]/.test(value)) {
      problems.push({ path: at(`http_server_config.headers.${name}`), message: 'must be a single line' });
    } else headers[known.toLowerCase()] = value;
  }

  const users = new Map<string, string>();
  for (const [user, hash] of Object.entries(file.basic_auth_users ?? {})) {
    if (user.includes(':')) {
      problems.push({ path: at('basic_auth_users'), message: 'a user name must not contain `:`' });
    } else users.set(user, hash);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return { tls, users, headers };
}

/** Reads and validates the web configuration file at `path` (see {@link parseWebConfig}). */
export function loadWebConfig(
  path: string,
  read: (path: string) => string | Buffer = readFileSync,
): WebConfig {
  let text: string;
  try {
    text = read(path).toString('utf8');
  } catch (error) {
    throw new ConfigError([
      { path: '--web.config.file', message: `cannot read ${path}: ${describeFsError(error)}` },
    ]);
  }
  return parseWebConfig(text, path, dirname(resolve(path)), read);
}
