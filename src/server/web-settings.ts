import { readFileSync, statSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import { ConfigError, formatProblem } from '../config/errors.js';
import { BasicAuth } from './basic-auth.js';
import { BcryptWorker } from './bcrypt-worker.js';
import { loadWebConfig, OPEN_WEB_CONFIG, type WebConfig } from './web-config.js';

/** What the web server runs on at a given moment: the validated file, its TLS material and its users. */
interface WebState {
  readonly config: WebConfig;
  /** Cert, key and client CA as read from their files; undefined without TLS. */
  readonly tls: SecureContextOptions | undefined;
  readonly auth: BasicAuth;
  /** Bumped at each successful reload; the server swaps its TLS context when it changes. */
  readonly generation: number;
}

/**
 * The web configuration, kept current without a restart. Every new connection and request calls
 * {@link WebSettings.current}, which stats the web config file and the TLS files it names (a few
 * `stat` calls, no read) and reloads everything when any of them changed: rotated certificates and
 * changed users apply to the next connection. A change that does not validate (bad YAML, unreadable
 * file, a key that does not match its certificate, a half-written rotation) is logged once and the
 * previous settings stay in force. Switching TLS on or off needs a restart, since the listener's
 * protocol is fixed when it starts.
 */
export class WebSettings {
  readonly #path: string | undefined;
  readonly #logger: Logger;
  /** One worker thread for every generation of users: a reload does not start another. */
  readonly #bcrypt = new BcryptWorker();
  #state: WebState;
  #signature: string;
  #rejected: string | undefined;

  /** Loads the file (when given); throws {@link ConfigError} when it is invalid. */
  constructor(path: string | undefined, logger: Logger) {
    this.#path = path;
    this.#logger = logger;
    const { state, signature } = this.#load(0);
    this.#state = state;
    this.#signature = signature;
  }

  /** Whether the listener must speak TLS (decided once, at start-up). */
  get tlsEnabled(): boolean {
    return this.#state.tls !== undefined;
  }

  /** The settings in force, reloaded first if any of their files changed since the last call. */
  current(): WebState {
    if (this.#path === undefined) return this.#state;
    const signature = this.#fingerprint(this.#state.config);
    if (signature !== this.#signature && signature !== this.#rejected) this.#tryReload(signature);
    return this.#state;
  }

  /** Re-reads the files whether or not they changed (SIGHUP); false when they are invalid. */
  reload(): boolean {
    if (this.#path === undefined) return true;
    return this.#tryReload(this.#fingerprint(this.#state.config));
  }

  #tryReload(signature: string): boolean {
    try {
      const loaded = this.#load(this.#state.generation + 1);
      this.#state = loaded.state;
      this.#signature = loaded.signature;
      this.#rejected = undefined;
      this.#logger.info(
        { file: this.#path, tls: this.tlsEnabled, users: this.#state.config.users.size },
        'web config reloaded',
      );
      return true;
    } catch (error) {
      this.#rejected = signature;
      // A ConfigError lists what to fix; anything else (a file gone between stat and read) is logged whole.
      const details =
        error instanceof ConfigError ? { problems: error.problems.map(formatProblem) } : { err: error };
      this.#logger.error({ file: this.#path, ...details }, 'web config invalid; keeping the previous one');
      return false;
    }
  }

  #load(generation: number): { state: WebState; signature: string } {
    if (this.#path === undefined) {
      const state = {
        config: OPEN_WEB_CONFIG,
        tls: undefined,
        auth: new BasicAuth(new Map(), this.#bcrypt),
        generation,
      };
      return { state, signature: '' };
    }
    // Fingerprints before reads: a file that changes while being loaded is seen as changed next time.
    const own = fingerprint([this.#path]);
    const { config, tls, tlsFingerprint } = readWebFiles(this.#path);
    if (generation > 0 && (config.tls !== undefined) !== this.tlsEnabled) {
      throw new ConfigError([
        {
          path: `${this.#path}: tls_server_config`,
          message: `switching TLS ${config.tls === undefined ? 'off' : 'on'} needs a restart`,
        },
      ]);
    }
    const signature = [own, tlsFingerprint].join('|');
    return { state: { config, tls, auth: new BasicAuth(config.users, this.#bcrypt), generation }, signature };
  }

  #fingerprint(config: WebConfig): string {
    return this.#path === undefined
      ? ''
      : [fingerprint([this.#path]), fingerprint(tlsFiles(config))].join('|');
  }
}

/**
 * Reads and validates the web config file and the TLS material it names, as the server will use
 * them; throws {@link ConfigError} on any problem (also for `--check-config` and start-up).
 */
export function readWebFiles(path: string): {
  config: WebConfig;
  tls: SecureContextOptions | undefined;
  /** Identity of the TLS files, taken before they were read. */
  tlsFingerprint: string;
} {
  const config = loadWebConfig(path);
  const tlsFingerprint = fingerprint(tlsFiles(config));
  if (config.tls === undefined) return { config, tls: undefined, tlsFingerprint };
  const tls: SecureContextOptions = {
    cert: readFileSync(config.tls.certFile),
    key: readFileSync(config.tls.keyFile),
    minVersion: config.tls.minVersion,
    ...(config.tls.maxVersion === undefined ? {} : { maxVersion: config.tls.maxVersion }),
    ...(config.tls.clientCaFile === undefined ? {} : { ca: readFileSync(config.tls.clientCaFile) }),
  };
  try {
    // Fails on a key that does not match the certificate, e.g. half-way through a rotation.
    createSecureContext(tls);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError([
      {
        path: `${path}: tls_server_config`,
        message: `unusable certificate, key or client CA${typeof code === 'string' ? ` (${code})` : ''}`,
      },
    ]);
  }
  return { config, tls, tlsFingerprint };
}

function tlsFiles(config: WebConfig): string[] {
  if (config.tls === undefined) return [];
  const files = [config.tls.certFile, config.tls.keyFile];
  if (config.tls.clientCaFile !== undefined) files.push(config.tls.clientCaFile);
  return files;
}

/** Identity of files: inode, size, mtime and ctime of each (`missing` for one that is not there). */
function fingerprint(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const s = statSync(file, { bigint: true });
        return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      } catch {
        return 'missing';
      }
    })
    .join(',');
}
