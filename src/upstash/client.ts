import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import {
  AbortedError,
  HttpStatusError,
  InvalidResponseError,
  NetworkError,
  TimeoutError,
  UpstashError,
} from './errors.js';
import { Semaphore } from './semaphore.js';
import { decodeUtf8 } from './utf8.js';

/** Which Upstash API a request goes to (a label of the request counter). */
export type Api = Credentials['api'];

/** A credential that only gives its value when asked (the config's Secret is one). */
export interface Revealable {
  reveal(): string;
}

/**
 * Who we are to Upstash: a QStash token (Bearer) or a management API key (HTTP Basic, with the
 * account's e-mail). Only the client turns these into a header; nothing above it knows how.
 */
export type Credentials =
  | { readonly api: 'qstash'; readonly token: Revealable }
  | { readonly api: 'management'; readonly email: string; readonly apiKey: Revealable };

/** Reported once per HTTP attempt, retries included: `code` is the status, or `error`. */
export type RequestObserver = (api: Api, code: string) => void;
/** Reported once per request that waited for a credential's burst limit to reset. */
export type BurstWaitObserver = (api: Api) => void;

/** Settings of {@link UpstashClient}. */
export interface ClientOptions {
  readonly timeoutMs: number;
  readonly retries: number;
  readonly concurrency: number;
  readonly userAgent: string;
  /** Bodies larger than this are `invalid_response`; a runaway body must not take the process down. */
  readonly maxBodyBytes?: number;
  /** Keep-alive sockets per origin, at most. */
  readonly connectionsPerOrigin?: number;
  readonly onRequest?: RequestObserver;
  readonly onBurstWait?: BurstWaitObserver;
  /** The jitter source, injectable so tests can pin backoff times. */
  readonly random?: () => number;
  /** Replaces the undici Agent, for tests (MockAgent). */
  readonly dispatcher?: Dispatcher;
}

/** One GET to Upstash. */
export interface GetOptions {
  readonly url: string;
  /** Sent as the Authorization header of this request only; never stored or printed. */
  readonly credentials: Credentials;
  /** Aborts the call when the exporter shuts down. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Unix ms by which the call must be over (the source's next tick): retries and Retry-After waits
   * that would end later are not attempted.
   */
  readonly deadline?: number | undefined;
  /**
   * Hears that this request waited for its credential's burst limit (after the client's own
   * `onBurstWait`): how a poll learns that it was held back, for its warning on the landing page.
   */
  readonly onBurstWait?: (() => void) | undefined;
}

/** Where an endpoint module sends its GET: a base URL plus everything of {@link GetOptions} but the path. */
export type Target = Omit<GetOptions, 'url'> & { readonly baseUrl: string };

/** The body cap when none is given (the exporter always passes `http.max_response_size`). */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
const BACKOFF_BASE_MS = 250;
/** A Retry-After is honoured up to an hour: a wilder one must not silence a source until restart. */
export const MAX_RETRY_AFTER_MS = 3_600_000;
const BACKOFF_CAP_MS = 8_000;
/** The longest wait for a burst limit's reset: Upstash's burst window is one second. */
export const MAX_BURST_WAIT_MS = 1_000;
/**
 * The longest URL sent, in characters. Ours are a base URL, a path with an ID and a cursor of at
 * most 4 KiB (pager.ts; 12 KiB percent-encoded): a longer one is made of an upstream value no API
 * would take back (servers refuse a request line this long, Node's with 431), so it is not sent.
 */
export const MAX_URL_LENGTH = 16 * 1024;

/**
 * The one way this program talks to Upstash: GET a JSON document with a per-attempt timeout that
 * aborts the socket, retries with exponential backoff and full jitter on network errors, timeouts,
 * 429 and 5xx, Retry-After on 429, a global concurrency cap and a body size cap. Throws
 * {@link UpstashError} subclasses carrying the failure reason, or {@link AbortedError} on shutdown.
 */
export class UpstashClient {
  readonly #options: ClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #slots: Semaphore;
  readonly #maxBodyBytes: number;
  /**
   * Per credential (the entry's object), the Unix ms before which its next request waits: a response
   * said `Burst-RateLimit-Remaining: 0` (docs/operations.md, Behaviour: Burst limit).
   */
  readonly #burstUntil = new WeakMap<Credentials, number>();

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#slots = new Semaphore(options.concurrency);
    this.#ownsDispatcher = options.dispatcher === undefined;
    // One keep-alive pool per origin is what an undici Agent is; `connections` bounds its sockets.
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        connections: options.connectionsPerOrigin ?? options.concurrency,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connect: { timeout: options.timeoutMs },
        keepAliveTimeout: 30_000,
      });
  }

  /** GETs `url` and returns its parsed JSON body. */
  async getJson(request: GetOptions): Promise<unknown> {
    if (request.url.length > MAX_URL_LENGTH)
      throw new InvalidResponseError(
        'GET',
        request.url,
        `URL longer than ${MAX_URL_LENGTH} characters, not sent`,
      );
    const retries = this.#options.retries;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(request);
      } catch (error) {
        if (!(error instanceof UpstashError) || !isRetryable(error) || attempt >= retries) throw error;
        const waitMs =
          error instanceof HttpStatusError && error.retryAfterMs !== undefined
            ? error.retryAfterMs
            : this.#backoff(attempt);
        if (request.deadline !== undefined && Date.now() + waitMs >= request.deadline) throw error;
        try {
          await sleep(waitMs, undefined, { signal: request.signal });
        } catch {
          throw new AbortedError('GET', request.url);
        }
      }
    }
  }

  /** Closes the keep-alive sockets. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #backoff(attempt: number): number {
    const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
    return Math.round((this.#options.random ?? Math.random)() * ceiling);
  }

  /**
   * Waits, holding no slot, until the credential's burst limit resets when its last response said it
   * had none left, so that paging never makes the account's own calls fail.
   */
  async #burstWait(request: GetOptions): Promise<void> {
    const until = this.#burstUntil.get(request.credentials);
    if (until === undefined) return;
    const waitMs = until - Date.now();
    if (waitMs <= 0) {
      this.#burstUntil.delete(request.credentials);
      return;
    }
    this.#options.onBurstWait?.(request.credentials.api);
    request.onBurstWait?.();
    try {
      await sleep(waitMs, undefined, { signal: request.signal });
    } catch {
      throw new AbortedError('GET', request.url);
    }
  }

  /** Notes a response's burst limit: none left means the credential's next request waits for Reset. */
  #noteBurst(credentials: Credentials, headers: Dispatcher.ResponseData['headers']): void {
    if (header(headers['burst-ratelimit-remaining'])?.trim() !== '0') return;
    const reset = Number(header(headers['burst-ratelimit-reset']));
    if (!Number.isFinite(reset) || reset <= 0) return;
    const now = Date.now();
    this.#burstUntil.set(credentials, Math.min(reset * 1000, now + MAX_BURST_WAIT_MS));
  }

  async #attempt(request: GetOptions): Promise<unknown> {
    const { url } = request;
    const { api } = request.credentials;
    await this.#burstWait(request);
    const release = await this.#slots.acquire();
    // One controller per attempt, aborted by its own timer or by shutdown. Not AbortSignal.any: on
    // Node 20 every composed signal stays registered with the long-lived shutdown signal, a leak of
    // one entry per request.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#options.timeoutMs);
    const onShutdown = (): void => controller.abort();
    request.signal?.addEventListener('abort', onShutdown, { once: true });
    const signal = controller.signal;
    const failed = (error: unknown): UpstashError | AbortedError => {
      if (request.signal?.aborted === true) return new AbortedError('GET', url);
      if (timedOut || isTimeoutCode(error))
        return new TimeoutError('GET', url, this.#options.timeoutMs, { cause: error });
      if (isRefusedRequest(error))
        return new InvalidResponseError('GET', url, 'request could not be sent', { cause: error });
      return new NetworkError('GET', url, error);
    };
    try {
      // Shut down or removed while waiting for a slot: nothing was sent, so nothing is counted.
      if (request.signal?.aborted === true) throw new AbortedError('GET', url);
      let response: Dispatcher.ResponseData;
      try {
        response = await this.#dispatcher.request({
          origin: new URL(url).origin,
          path: pathOf(url),
          method: 'GET',
          headers: {
            authorization: authorizationHeader(request.credentials),
            accept: 'application/json',
            'user-agent': this.#options.userAgent,
          },
          signal,
        });
      } catch (error) {
        // The books must balance: a request undici refused to send was never sent.
        if (!isRefusedRequest(error)) this.#options.onRequest?.(api, 'error');
        throw failed(error);
      }
      this.#options.onRequest?.(api, String(response.statusCode));
      const { statusCode, headers, body } = response;
      this.#noteBurst(request.credentials, headers);
      if (statusCode < 200 || statusCode > 299) {
        // Drain so the socket goes back to the pool; the error body is not ours to print.
        await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        throw new HttpStatusError(
          'GET',
          url,
          statusCode,
          statusCode === 429 ? parseRetryAfter(headers['retry-after']) : undefined,
        );
      }
      const contentType = header(headers['content-type']);
      if (contentType !== undefined && !/^application\/([a-z.+-]*\+)?json\b/i.test(contentType)) {
        await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        throw new InvalidResponseError('GET', url, 'content type is not JSON');
      }
      const declared = Number(header(headers['content-length']));
      if (declared > this.#maxBodyBytes) {
        discard(body);
        throw new InvalidResponseError(
          'GET',
          url,
          `body larger than ${this.#maxBodyBytes} bytes (http.max_response_size)`,
        );
      }
      let text: string;
      try {
        text = await readCapped(body, this.#maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          throw new InvalidResponseError(
            'GET',
            url,
            `body larger than ${this.#maxBodyBytes} bytes (http.max_response_size)`,
          );
        }
        throw failed(error);
      }
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw new InvalidResponseError('GET', url, 'malformed JSON', { cause: error });
      }
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onShutdown);
      release();
    }
  }
}

/** The Authorization header value for `credentials`. */
function authorizationHeader(credentials: Credentials): string {
  if (credentials.api === 'qstash') return `Bearer ${credentials.token.reveal()}`;
  const basic = Buffer.from(`${credentials.email}:${credentials.apiKey.reveal()}`).toString('base64');
  return `Basic ${basic}`;
}

class BodyTooLarge extends Error {}

/** Drops a body we will not read: destroying it emits an abort error, which must not go uncaught. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function readCapped(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      discard(body);
      throw new BodyTooLarge();
    }
    chunks.push(chunk);
  }
  return decodeUtf8(Buffer.concat(chunks, size));
}

function isRetryable(error: UpstashError): boolean {
  return (
    error.reason === 'network' ||
    error.reason === 'timeout' ||
    error.reason === 'rate_limited' ||
    error.reason === 'server_error'
  );
}

/**
 * Whether undici refused to send the request at all (an invalid header value, say): our fault or
 * the configuration's, not the connection's, so neither `network` nor worth a retry.
 */
function isRefusedRequest(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code === 'UND_ERR_INVALID_ARG' || code.startsWith('ERR_INVALID_'));
}

function isTimeoutCode(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  );
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The path of `url` as written, not through `new URL`, which resolves `.` and `..` segments (also
 * as %2E): a database ID `..` must not turn `/v2/redis/stats/..` into `/v2/redis/`.
 */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start === -1 ? '/' : url.slice(start);
}

/** An ID as one path segment: percent-encoded, and never `.` or `..`, which would leave the resource. */
export function pathSegment(id: string): string {
  return id === '.' || id === '..' ? id.replace(/\./g, '%2E') : encodeURIComponent(id);
}

/**
 * Whether `id` can be a path segment at all: {@link pathSegment} refuses lone UTF-16 surrogates,
 * which have no UTF-8 spelling. A listing that names such a unit cannot have it polled.
 */
export function isPathSegment(id: string): boolean {
  try {
    pathSegment(id);
    return true;
  } catch {
    return false;
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = header(value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^[0-9]+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // Every HTTP-date form starts with the day name; Date.parse would also take `1.5` or `-1` as dates.
  if (!/^[A-Za-z]/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}
