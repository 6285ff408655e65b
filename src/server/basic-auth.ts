import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { BcryptWorker } from './bcrypt-worker.js';

/** The outcome of checking a request's credentials. */
type AuthResult = 'ok' | 'denied' | 'busy';

/** Successful checks remembered, so a scraper costs one bcrypt per process, not one per scrape. */
const CACHE_SIZE = 256;

/**
 * HTTP basic auth against bcrypt hashes (exporter-toolkit's `basic_auth_users`). An unknown user costs
 * the same bcrypt work as a known one (a dummy hash of the same cost), so timing does not tell which
 * users exist. Successful checks are cached under an HMAC of user and password with a per-process
 * random key: the cache holds no password, and a cache hit is compared in constant time. A cache hit
 * costs microseconds on the event loop; bcrypt runs on a worker thread ({@link BcryptWorker}), whose queue is
 * bounded: beyond it, unverified attempts are turned away ('busy', a 429) instead of queued.
 */
export class BasicAuth {
  readonly #users: ReadonlyMap<string, string>;
  readonly #bcrypt: BcryptWorker;
  readonly #key = randomBytes(32);
  readonly #verified = new Map<string, Buffer>();
  #dummy: Promise<string> | undefined;

  constructor(users: ReadonlyMap<string, string>, bcryptWorker: BcryptWorker) {
    // bcryptjs reads the $2a$, $2b$ and $2y$ hashes of htpasswd and Go alike.
    this.#users = users;
    this.#bcrypt = bcryptWorker;
    // Made now, so the first unknown user does not pay for it (and stand out by timing).
    if (this.#users.size > 0) this.#dummy = this.#makeDummy();
  }

  /** Whether any user is configured, i.e. whether requests must authenticate. */
  get enabled(): boolean {
    return this.#users.size > 0;
  }

  /** Checks an `Authorization` header value. */
  async check(header: string | undefined): Promise<AuthResult> {
    const credentials = parseBasic(header);
    if (credentials === undefined) return 'denied';
    const { user, password } = credentials;
    const digest = createHmac('sha256', this.#key).update(user).update('\0').update(password).digest();
    const cacheKey = digest.toString('base64');
    const cached = this.#verified.get(cacheKey);
    if (cached !== undefined && timingSafeEqual(cached, digest)) return 'ok';

    const hash = this.#users.get(user);
    const match = await this.#bcrypt.compare(password, hash ?? (await this.#dummyHash()));
    if (match === 'busy') return 'busy';
    if (!match || hash === undefined) return 'denied';
    if (this.#verified.size >= CACHE_SIZE) {
      const oldest = this.#verified.keys().next();
      if (oldest.done !== true) this.#verified.delete(oldest.value);
    }
    this.#verified.set(cacheKey, digest);
    return 'ok';
  }

  /** A hash of a random password at the cost of the configured hashes, made once, off the hot path. */
  async #dummyHash(): Promise<string> {
    this.#dummy ??= this.#makeDummy();
    return this.#dummy;
  }

  async #makeDummy(): Promise<string> {
    const first = this.#users.values().next();
    const cost = first.done === true ? 10 : bcrypt.getRounds(first.value);
    return this.#bcrypt.hash(randomBytes(16).toString('hex'), cost);
  }
}

/** User and password of a `Basic` Authorization header; undefined when it is not one. */
function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
