import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';

/** The bounds on the connections of our HTTP server. */
export interface ConnectionLimits {
  /** Open connections at most; a new one beyond it closes the least recently active idle one. */
  readonly maxConnections: number;
  /** Requests a connection may have waiting for their answers; one more and it is closed. */
  readonly maxPipelined: number;
}

/** Connections at most when the descriptor limit allows: far more than any set of scrapers needs. */
export const MAX_CONNECTIONS = 512;
/**
 * Requests waiting for their answers per connection: Prometheus sends one at a time, and the rare
 * client that pipelines reads as it goes. Each waiting answer may hold a /metrics body.
 */
export const MAX_PIPELINED = 4;

/**
 * The limits for a process whose soft limit on open files is `fdLimit` (undefined: unknown or
 * unlimited): {@link MAX_CONNECTIONS}, or half the descriptors if that is less, so that the
 * connections can never take the descriptors that polling Upstash and accepting a scraper need.
 */
export function connectionLimits(fdLimit: number | undefined): ConnectionLimits {
  const byFds = fdLimit === undefined ? MAX_CONNECTIONS : Math.floor(fdLimit / 2);
  return { maxConnections: Math.max(1, Math.min(MAX_CONNECTIONS, byFds)), maxPipelined: MAX_PIPELINED };
}

/** The soft limit on open files in the text of /proc/self/limits; undefined when absent or unlimited. */
export function parseFdLimit(limits: string): number | undefined {
  const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
  return soft === undefined || !/^\d+$/.test(soft) ? undefined : Number(soft);
}

/** This process's soft limit on open files (Linux); undefined elsewhere or when unlimited. */
export function readFdLimit(): number | undefined {
  try {
    return parseFdLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/** One accepted connection: its TCP socket, its TLS socket once the handshake is done. */
interface Connection {
  readonly socket: Socket;
  tls: TLSSocket | undefined;
  /** Requests received whose answers are not yet handed to the kernel. */
  waiting: number;
  /** Being closed: its requests are no longer served. */
  closing: boolean;
}

/** A condition logged at most once per {@link THROTTLE_MS}, with how often it happened in between. */
const THROTTLE_MS = 10_000;
/** Idle connections closed at once when accepting fails for want of descriptors. */
const SHED_ON_EMFILE = 16;

/**
 * Keeps hostile or broken clients from exhausting the server's memory and descriptors:
 *
 * - at most `maxConnections` are open. A new one beyond that closes the least recently active idle
 *   connection (idle: no request waiting for its answer; active: a request started or an answer
 *   finished), so idle or slowloris connections cannot lock scrapers out: Node's own `maxConnections`
 *   refuses the newcomer instead, which is the scraper. Node's limit stays as a backstop a quarter
 *   higher, for bursts accepted faster than closed sockets are released;
 * - a connection with more than `maxPipelined` requests waiting is closed: a client that pipelines
 *   without reading would otherwise have an answer (a response object and a /metrics body) queued for
 *   every request. As no answer is written to the socket before the one ahead of it is in the kernel,
 *   this also bounds what its write buffer holds. Node parses the whole of a read (up to 64 KiB of
 *   requests) before the connection can be closed; that is the most a connection costs, and it is
 *   released when it closes;
 * - accept errors (EMFILE when the descriptors run out anyway) close a few idle connections to make
 *   room, and are logged, like every condition above, at most once per 10 s with a count.
 */
export class ConnectionGuard {
  readonly #limits: ConnectionLimits;
  readonly #logger: Logger;
  /** Least recently active first (a Map iterates in insertion order; activity re-inserts). */
  readonly #open = new Map<Socket, Connection>();
  /** Connections by the socket requests arrive on: the TCP socket, or the TLS one. */
  readonly #bySocket = new WeakMap<Socket, Connection>();
  /** Connections by remote address and port, to find a TLS socket's connection after its handshake. */
  readonly #byPeer = new Map<string, Connection>();
  readonly #throttled = new Map<string, { last: number; count: number }>();

  constructor(limits: ConnectionLimits, logger: Logger) {
    this.#limits = limits;
    this.#logger = logger;
  }

  /** Watches `server`'s connections, TLS handshakes and accept errors. */
  attach(server: Server): void {
    server.maxConnections = this.#limits.maxConnections + Math.ceil(this.#limits.maxConnections / 4);
    server.prependListener('connection', (socket: Socket) => this.#opened(socket));
    server.on('secureConnection', (tls: TLSSocket) => this.#secured(tls));
    server.on('drop', () => {
      this.#warn('refused', 'connection limit reached; refusing connections', {
        limit: server.maxConnections,
      });
    });
    server.on('error', (error: NodeJS.ErrnoException) => {
      // Errors before listening (address in use) are listen()'s to report.
      if (server.listening) this.#acceptFailed(error);
    });
  }

  /**
   * Counts a request against its connection. False when that closed the connection (too many
   * requests waiting), or it was closed already: the request must then not be served.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.socket.destroyed) return false;
    const connection = this.#bySocket.get(req.socket);
    if (connection === undefined) return true;
    if (connection.closing) return false;
    connection.waiting++;
    this.#touch(connection);
    res.once('close', () => {
      connection.waiting--;
      this.#touch(connection);
    });
    if (connection.waiting <= this.#limits.maxPipelined) return true;
    withoutStacks(req.socket);
    this.#close(connection);
    this.#warn('pipelining', 'closing a connection that pipelines requests without reading the answers', {
      remote: req.socket.remoteAddress,
      limit: this.#limits.maxPipelined,
    });
    return false;
  }

  #opened(socket: Socket): void {
    const connection: Connection = { socket, tls: undefined, waiting: 0, closing: false };
    this.#open.set(socket, connection);
    this.#bySocket.set(socket, connection);
    const peer = peerOf(socket);
    if (peer !== undefined) this.#byPeer.set(peer, connection);
    socket.once('close', () => {
      this.#open.delete(socket);
      if (peer !== undefined && this.#byPeer.get(peer) === connection) this.#byPeer.delete(peer);
    });
    if (this.#open.size <= this.#limits.maxConnections) return;
    // The newcomer itself, when every other connection has a request in progress.
    const idle = this.#leastRecentlyActiveIdle();
    if (idle !== undefined) this.#close(idle);
    this.#warn('evicted', 'connection limit reached; closing the least recently active idle connection', {
      limit: this.#limits.maxConnections,
    });
  }

  #secured(tls: TLSSocket): void {
    const peer = peerOf(tls);
    const connection = peer === undefined ? undefined : this.#byPeer.get(peer);
    if (connection === undefined) return;
    connection.tls = tls;
    this.#bySocket.set(tls, connection);
  }

  #acceptFailed(error: NodeJS.ErrnoException): void {
    if (error.code !== 'EMFILE' && error.code !== 'ENFILE') {
      this.#error('server', 'server error', error);
      return;
    }
    for (let i = 0; i < SHED_ON_EMFILE; i++) {
      const idle = this.#leastRecentlyActiveIdle();
      if (idle === undefined) break;
      this.#close(idle);
    }
    this.#error(
      'descriptors',
      'cannot accept connections: out of file descriptors; closing idle ones',
      error,
    );
  }

  #leastRecentlyActiveIdle(): Connection | undefined {
    for (const connection of this.#open.values()) if (connection.waiting === 0) return connection;
    return undefined;
  }

  #touch(connection: Connection): void {
    // A closed connection is not put back.
    if (this.#open.delete(connection.socket)) this.#open.set(connection.socket, connection);
  }

  #close(connection: Connection): void {
    // Forgotten at once, not at 'close': the sockets of the same accept burst must find another.
    this.#open.delete(connection.socket);
    connection.closing = true;
    connection.tls?.destroy();
    connection.socket.destroy();
  }

  #warn(kind: string, message: string, fields: Record<string, unknown>): void {
    const count = this.#due(kind);
    if (count !== undefined)
      this.#logger.warn({ ...fields, occurrences: count, open: this.#open.size }, message);
  }

  #error(kind: string, message: string, error: Error): void {
    const count = this.#due(kind);
    if (count !== undefined)
      this.#logger.error({ err: error, occurrences: count, open: this.#open.size }, message);
  }

  /** Counts an occurrence; the count since the last line when a line is due, else undefined. */
  #due(kind: string): number | undefined {
    const now = Date.now();
    const state = this.#throttled.get(kind) ?? { last: -Infinity, count: 0 };
    this.#throttled.set(kind, state);
    state.count++;
    if (now - state.last < THROTTLE_MS) return undefined;
    const count = state.count;
    state.last = now;
    state.count = 0;
    return count;
  }
}

/**
 * Node aborts every request still queued on a connection when it closes, each with an Error whose
 * stack it formats (`err.stack`, against a V8 leak), in the socket's 'close' listener: for a read full
 * of pipelined requests, ~1,500 of them and half the cost of the whole attack. Nobody sees those
 * stacks, so they are captured with no frames: the limit is lowered just around Node's listener (ours
 * go before and after it) and put back at once.
 */
function withoutStacks(socket: Socket): void {
  let limit = Error.stackTraceLimit;
  socket.prependOnceListener('close', () => {
    limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
  });
  socket.once('close', () => {
    Error.stackTraceLimit = limit;
  });
}

function peerOf(socket: Socket): string | undefined {
  const { remoteAddress, remotePort } = socket;
  return remoteAddress === undefined || remotePort === undefined
    ? undefined
    : `${remoteAddress}|${remotePort}`;
}
