import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the server saw of one request. */
export interface SeenRequest {
  readonly at: number;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
}

/** A tiny HTTP server on 127.0.0.1, port 0, that records what reaches it. */
export interface LocalServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** TCP connections the server saw close. */
  readonly closedConnections: number;
  /** Requests whose response has not finished yet, and the most there ever were at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Resolves once `n` connections have closed, or rejects after `ms`. */
  waitForClosedConnections(n: number, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a server that hands each request to `handler` (which may never answer). */
export async function startLocalServer(
  handler: (req: IncomingMessage, res: ServerResponse, index: number) => void,
): Promise<LocalServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let closedConnections = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const closeWaiters = new Set<() => void>();

  const server = createServer((req, res) => {
    requests.push({ at: performance.now(), path: req.url ?? '', headers: req.headers });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      inFlight--;
    };
    res.on('finish', finish);
    res.on('close', finish);
    handler(req, res, requests.length - 1);
  });
  server.on('connection', (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      closedConnections++;
      for (const wake of closeWaiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get connections() {
      return connections;
    },
    get closedConnections() {
      return closedConnections;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    waitForClosedConnections(n, ms = 5000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (closedConnections < n) return;
          clearTimeout(timer);
          closeWaiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          closeWaiters.delete(check);
          reject(new Error(`only ${closedConnections} of ${n} connections closed within ${ms} ms`));
        }, ms);
        closeWaiters.add(check);
        check();
      });
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers with a JSON body and a Content-Length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}
