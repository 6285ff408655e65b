import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';

/** Splits `HOST:PORT` (`:PORT` for every interface, `[v6]:PORT`) for `server.listen`. */
export function parseListenAddress(address: string): { host: string | undefined; port: number } {
  const index = address.lastIndexOf(':');
  const host = address.slice(0, index).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? undefined : host, port: Number(address.slice(index + 1)) };
}

/**
 * Starts listening; rejects when the address cannot be bound (port in use, bad host). Later server
 * errors (accept failing with EMFILE under descriptor exhaustion) need a listener, or they end the
 * process: createWebServer's ConnectionGuard is one (it logs them, throttled); a server without any
 * gets one that logs each.
 */
export async function listen(server: Server, address: string, logger: Logger): Promise<AddressInfo> {
  const { host, port } = parseListenAddress(address);
  const before = server.listenerCount('error');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (before === 0) {
    server.on('error', (error: Error) => {
      logger.error({ err: error }, 'server error');
    });
  }
  return server.address() as AddressInfo;
}

/**
 * Options of `createServer` (plain or TLS): Node checks the request and header timeouts of every
 * connection on a timer, every 30 s unless told otherwise, so that a slowloris connection would live
 * up to 30 s past its limit.
 */
export const SERVER_OPTIONS = { connectionsCheckingInterval: 1_000 } as const;

/** A TLS handshake gets as long as a request head does (Node's default: 120 s). */
export const HANDSHAKE_TIMEOUT_MS = 5_000;

/** The time limits of our listener (plain or TLS): slow or stuck clients cannot hold sockets for ever. */
export function applyTimeouts<S extends Server>(server: S): S {
  // A connection that has not sent a whole request head within 5 s of opening (or of starting a
  // request) is cut off, as is one whose request takes 30 s…
  server.headersTimeout = 5_000;
  server.requestTimeout = 30_000;
  // …an idle keep-alive connection after 65 s (longer than the 60 s idle timeouts of load balancers)…
  server.keepAliveTimeout = 65_000;
  // …and one that stops reading the response: a socket without progress for 60 s is destroyed.
  server.timeout = 60_000;
  return server;
}
