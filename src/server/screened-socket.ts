import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';

/** What a {@link ScreenedSocket} asks of its connection's bookkeeping. */
export interface Screen {
  /** Request heads the connection may send now (its limit less the requests waiting for answers). */
  allowance(): number;
  /** A read held more heads than that: its bytes are dropped, and the connection must be closed. */
  refuse(): void;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Counts the ends of request heads (a blank line, CRLF CRLF) in a stream of chunks, including one
 * split across two chunks. A request body holding blank lines counts too: none of our endpoints
 * takes a body, and a client sending one is counted as if it pipelined more.
 */
export class HeadCounter {
  /** The end of the previous chunk after its last head: up to 3 bytes a head's end may begin with. */
  #carry: Buffer = Buffer.alloc(0);

  /** Heads ending in `chunk`; counting stops at `atMost + 1` (the caller then closes the connection). */
  count(chunk: Buffer, atMost: number): number {
    const data = this.#carry.length === 0 ? chunk : Buffer.concat([this.#carry, chunk]);
    let heads = 0;
    let from = 0;
    while (heads <= atMost) {
      const at = data.indexOf(HEAD_END, from);
      if (at < 0) break;
      heads++;
      from = at + HEAD_END.length;
    }
    // Copied, so that a small carry does not keep a 64 KiB read alive.
    this.#carry = Buffer.from(data.subarray(Math.max(from, data.length - (HEAD_END.length - 1))));
    return heads;
  }
}

/**
 * A connection's socket as our HTTP server's parser reads it: each read is screened first, and dropped
 * with its connection when it holds more request heads than may wait for answers (docs/security.md,
 * Resource bounds). Node's parser turns a whole read of a `net.Socket` (up to ~1,500 pipelined
 * requests) into request objects before our code runs, but reads any other Duplex chunk by chunk from
 * its 'data' events; a flood once kept fresh scrapes waiting for seconds (BENCHMARKS.md, "The flood").
 * At most one unparsed read is held (high-water mark 0, the socket paused meanwhile), so the count a
 * read is screened against is exact. Writes go straight through, completing when the socket's do.
 */
export class ScreenedSocket extends Duplex {
  readonly #socket: Socket;
  readonly #screen: Screen;
  readonly #heads = new HeadCounter();

  constructor(socket: Socket, screen: Screen) {
    // Half-open as Node's HTTP server opens its sockets: it ends the writable side itself.
    super({
      allowHalfOpen: true,
      readableHighWaterMark: 0,
      writableHighWaterMark: socket.writableHighWaterMark,
      decodeStrings: false,
    });
    this.#socket = socket;
    this.#screen = screen;
    socket.on('data', (chunk: Buffer) => this.#received(chunk));
    socket.on('end', () => this.push(null));
    socket.on('error', (error: Error) => this.destroy(error));
    socket.on('close', () => this.destroy());
    socket.on('timeout', () => this.emit('timeout'));
  }

  get remoteAddress(): string | undefined {
    return this.#socket.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.#socket.remotePort;
  }

  get remoteFamily(): string | undefined {
    return this.#socket.remoteFamily;
  }

  get localAddress(): string | undefined {
    return this.#socket.localAddress;
  }

  get localPort(): number | undefined {
    return this.#socket.localPort;
  }

  /** The socket's idle timeout: Node's HTTP server sets it (`server.timeout`, keep-alive) and hears 'timeout'. */
  setTimeout(ms: number, callback?: () => void): this {
    this.#socket.setTimeout(ms);
    if (callback !== undefined) this.once('timeout', callback);
    return this;
  }

  /** Ends the writable side, and destroys the stream once that is written (as `net.Socket` does). */
  destroySoon(): void {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  }

  override _read(): void {
    this.#socket.resume();
  }

  override _write(
    chunk: Buffer | string,
    encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    this.#socket.write(chunk, encoding, callback);
  }

  override _writev(
    chunks: { chunk: Buffer | string; encoding: BufferEncoding }[],
    callback: (error?: Error | null) => void,
  ): void {
    this.#socket.cork();
    chunks.forEach(({ chunk, encoding }, index) => {
      if (index < chunks.length - 1) this.#socket.write(chunk, encoding);
      else this.#socket.write(chunk, encoding, callback);
    });
    this.#socket.uncork();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#socket.destroy();
    callback(error);
  }

  #received(chunk: Buffer): void {
    const allowance = this.#screen.allowance();
    if (this.#heads.count(chunk, allowance) > allowance) {
      this.#socket.pause();
      this.#screen.refuse();
      return;
    }
    // Not taken at once: the parser is paused (answers are piling up). Read nothing more until it is.
    if (!this.push(chunk)) this.#socket.pause();
  }
}

/**
 * Puts `screen` between the connections `server` accepts (the TCP socket, or the TLS socket once its
 * handshake is done) and its HTTP parser. Node's HTTP server takes each connection in the listener its
 * constructor put on that event (the one the documentation lets a program emit with any Duplex to
 * inject a connection): it is taken off and called with the screened stream instead. The server stays
 * the one that listens: an HTTP server that does not (fed by a plain `net.Server`) never starts the
 * timer that enforces its header and request timeouts. To be called before any listener of ours is
 * added, so that Node's is the only one.
 */
export function screenConnections(
  server: Server,
  event: 'connection' | 'secureConnection',
  screen: (socket: Socket) => Duplex,
): void {
  const [http, ...others] = server.listeners(event);
  if (http === undefined || others.length > 0) {
    throw new Error(`expected the HTTP server's own '${event}' listener alone`);
  }
  server.removeListener(event, http as (...args: unknown[]) => void);
  server.on(event, (socket: Socket) => {
    (http as (this: Server, socket: Duplex) => void).call(server, screen(socket));
  });
}
