import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { ScreenedSocket } from './screened-socket.js';

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
  /** What the HTTP parser reads, once it has the connection (see {@link ConnectionGuard.screen}). */
  screened: ScreenedSocket | undefined;
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
 * Keeps hostile or broken clients from exhausting memory and descriptors (docs/security.md, Resource
 * bounds). A newcomer beyond `maxConnections` closes the least recently active idle connection instead
 * of being refused as by Node's own limit (kept a quarter higher as a backstop), so that idle or
 * slowloris connections cannot lock a scraper out. Reads are screened before Node's parser
 * ({@link ConnectionGuard.screen}), so a pipelining flood costs no request objects beyond `maxPipelined`;
 * {@link ConnectionGuard.admit} stays the rule of record.
 */
export class ConnectionGuard {
  readonly #limits: ConnectionLimits;
  readonly #logger: Logger;
  /** Least recently active first (a Map iterates in insertion order; activity re-inserts). */
  readonly #open = new Map<Socket, Connection>();
  /** Connections by their TCP socket, and by the stream their requests arrive on (the screened one). */
  readonly #bySocket = new WeakMap<Duplex, Connection>();
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
    this.#refusePipelining(connection);
    return false;
  }

  /**
   * The stream Node's HTTP parser is to read for `socket` (a connection's TCP socket, or its TLS socket
   * once the handshake is done): its reads screened against the connection's pipelining limit. The
   * socket itself when it is no connection of ours.
   */
  screen(socket: Socket): Duplex {
    const connection = socket instanceof TLSSocket ? this.#secured(socket) : this.#bySocket.get(socket);
    if (connection === undefined) return socket;
    const screened = new ScreenedSocket(socket, {
      allowance: () => (connection.closing ? -1 : this.#limits.maxPipelined - connection.waiting),
      refuse: () => this.#refusePipelining(connection),
    });
    connection.screened = screened;
    this.#bySocket.set(screened, connection);
    return screened;
  }

  #refusePipelining(connection: Connection): void {
    if (connection.closing) return;
    this.#close(connection);
    this.#warn('pipelining', 'closing a connection that pipelines requests without reading the answers', {
      limit: this.#limits.maxPipelined,
    });
  }

  #opened(socket: Socket): void {
    const connection: Connection = {
      socket,
      tls: undefined,
      screened: undefined,
      waiting: 0,
      closing: false,
    };
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

  /** The connection of a TLS socket whose handshake is done. */
  #secured(tls: TLSSocket): Connection | undefined {
    const peer = peerOf(tls);
    const connection = peer === undefined ? undefined : this.#byPeer.get(peer);
    if (connection !== undefined) connection.tls = tls;
    return connection;
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
    connection.screened?.destroy();
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

function peerOf(socket: Socket): string | undefined {
  const { remoteAddress, remotePort } = socket;
  return remoteAddress === undefined || remotePort === undefined
    ? undefined
    : `${remoteAddress}|${remotePort}`;
}
