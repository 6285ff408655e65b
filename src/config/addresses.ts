// Checks of the addresses in the configuration: where we listen, and where Upstash is.

import { FIXED_PATHS } from '../fixed-paths.js';
import type { Config } from './types.js';

/** What a listen address must be: also the message for one that is not text. */
export const LISTEN_ADDRESS_EXPECTED =
  'must be HOST:PORT such as :9645 (or [IPv6]:PORT), with a port from 0 to 65535';

/** What a base URL must be, first of all: also the message for one that is not text. */
export const BASE_URL_EXPECTED = 'must be an absolute http:// or https:// URL';

/** An error message for a bad `HOST:PORT`, or undefined when it is fine. */
export function checkListenAddress(address: string): string | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]*):([0-9]{1,5})$/.exec(address);
  if (match === null || Number(match[2]) > 65_535) return LISTEN_ADDRESS_EXPECTED;
  return undefined;
}

/** The paths our server answers besides the telemetry path, which cannot take one of them. */
export const FIXED_WEB_PATHS: readonly string[] = [...FIXED_PATHS.keys()];

/**
 * An error message for a bad `--web.telemetry-path` (node_exporter's flag: where /metrics is served),
 * or undefined when it is fine: a path from the root, as a request line carries it (no query,
 * fragment, whitespace or `%`-escapes, which requests are matched on before decoding), not one of the
 * other endpoints.
 */
export function checkTelemetryPath(path: string): string | undefined {
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(path) || path.length > 256)
    return "must be a path such as /metrics: a leading /, then letters, digits and -._~!$&'()*+,;=:@/ (at most 256 characters)";
  if (FIXED_WEB_PATHS.includes(path))
    return `must not be ${path}, which the exporter serves already (${FIXED_WEB_PATHS.join(', ')})`;
  return undefined;
}

/** An error message for a bad Upstash base URL, or undefined when it is fine. */
export function checkBaseUrl(text: string): string | undefined {
  const parsed = URL.canParse(text) ? new URL(text) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return BASE_URL_EXPECTED;
  }
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain credentials';
  // A query would end up in front of the API path, and may hold a secret that summaries would print.
  if (parsed.search !== '' || parsed.hash !== '') return 'must not have a query or fragment';
  return undefined;
}

/** The accounts whose credentials would cross the network unencrypted: plain http to a non-loopback host. */
export function plainHttpAccounts(
  config: Config,
): { kind: 'qstash' | 'management'; name: string; host: string }[] {
  const accounts = [
    ...config.qstash.map((a) => ({ kind: 'qstash' as const, name: a.name, url: new URL(a.url) })),
    ...config.management.map((a) => ({ kind: 'management' as const, name: a.name, url: new URL(a.url) })),
  ];
  return accounts
    .filter(({ url }) => url.protocol === 'http:' && !isLoopback(url.hostname))
    .map(({ kind, name, url }) => ({ kind, name, host: url.host }));
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host.startsWith('127.');
}
