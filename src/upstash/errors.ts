import { excerpt } from './excerpt.js';

/** Why a call to Upstash failed: the `reason` label (docs/metrics.md, The exporter itself). */
export const UPSTASH_FAILURE_REASONS = [
  'unauthorized',
  'not_found',
  'rate_limited',
  'server_error',
  'client_error',
  'timeout',
  'network',
  'invalid_response',
] as const;

export type UpstashFailureReason = (typeof UPSTASH_FAILURE_REASONS)[number];

/**
 * A request as an error message names it: the method and a bounded excerpt of the URL (a cursor
 * or an ID from upstream can make a URL of any length).
 */
export function requestName(method: string, url: string): string {
  return `${method} ${excerpt(url)}`;
}

/**
 * Base of every error a call to Upstash can end in; messages name the request ({@link requestName}),
 * never a credential, and quote at most an excerpt of any upstream value.
 */
export class UpstashError extends Error {
  readonly reason: UpstashFailureReason;

  constructor(reason: UpstashFailureReason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UpstashError';
    this.reason = reason;
  }
}

/** Upstash answered with a status other than 2xx. */
export class HttpStatusError extends UpstashError {
  readonly status: number;
  /** For 429: how long Upstash asked us to wait, when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(method: string, url: string, status: number, retryAfterMs?: number) {
    super(reasonForStatus(status), `Upstash answered ${status}: ${requestName(method, url)}`);
    this.name = 'HttpStatusError';
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A 404 from an endpoint Upstash may retire (docs/configuration.md, Sources polled only when listed): a
 * failure like any other 404 (`not_found`), whose notice the poller logs once per unit.
 */
export class RetiredEndpointError extends HttpStatusError {
  /** The endpoint as the notice names it (`GET /v2/teams`), without host or credentials. */
  readonly endpoint: string;

  constructor(method: string, url: string, endpoint: string) {
    super(method, url, 404);
    this.name = 'RetiredEndpointError';
    this.endpoint = endpoint;
  }
}

/** The request, or reading its body, took longer than `http.timeout`. */
export class TimeoutError extends UpstashError {
  /** The bound that was passed (`http.timeout`). */
  readonly timeoutMs: number;

  constructor(method: string, url: string, timeoutMs: number, options?: ErrorOptions) {
    super('timeout', `Request timed out after ${timeoutMs} ms: ${requestName(method, url)}`, options);
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** The connection failed: refused, reset, DNS, TLS. */
export class NetworkError extends UpstashError {
  constructor(method: string, url: string, cause: unknown) {
    super('network', `Request failed (${excerpt(networkCode(cause))}): ${requestName(method, url)}`, {
      cause,
    });
    this.name = 'NetworkError';
  }
}

/** The request worked but the body is not what the API documents: bad JSON, wrong shape, too large. */
export class InvalidResponseError extends UpstashError {
  constructor(method: string, url: string, problem: string, options?: ErrorOptions) {
    super('invalid_response', `Invalid response (${excerpt(problem)}): ${requestName(method, url)}`, options);
    this.name = 'InvalidResponseError';
  }
}

/** The call was abandoned because the exporter is shutting down; not a failure of Upstash. */
export class AbortedError extends Error {
  constructor(method: string, url: string) {
    super(`Request aborted: ${requestName(method, url)}`);
    this.name = 'AbortedError';
  }
}

/** The failure reason for an HTTP status outside 2xx. */
export function reasonForStatus(status: number): UpstashFailureReason {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500 && status <= 599) return 'server_error';
  if (status >= 400 && status <= 499) return 'client_error';
  // 1xx/3xx: we neither follow redirects nor expect them, so the answer is not the documented one.
  return 'invalid_response';
}

function networkCode(cause: unknown): string {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'connection error';
}
