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
 * errors (accept failing with EMFILE under descriptor exhaustion) are logged: unhandled, they would end
 * the process.
 */
export async function listen(server: Server, address: string, logger: Logger): Promise<AddressInfo> {
  const { host, port } = parseListenAddress(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error: Error) => {
    logger.error({ err: error }, 'server error');
  });
  return server.address() as AddressInfo;
}

/** The time limits of our listener (plain or TLS): slow or stuck clients cannot hold sockets for ever. */
export function applyTimeouts<S extends Server>(server: S): S {
  // A client that sends its request too slowly is cut off…
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 65_000;
  // …and so is one that stops reading the response: a socket without progress for 60 s is destroyed.
  server.timeout = 60_000;
  return server;
}
