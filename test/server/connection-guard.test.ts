import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { connectionLimits, MAX_CONNECTIONS, parseFdLimit } from '../../src/server/connection-guard.js';
import { listen } from '../../src/server/listener.js';
import { createWebServer } from '../../src/server/web-server.js';
import { WebSettings } from '../../src/server/web-settings.js';
import { createLogger } from '../../src/logger.js';
import { eventually, httpGet } from '../helpers/harness.js';
import { makePki } from './tls-fixtures.js';

// The bounds on our server's connections (docs/security.md, Resource bounds), on a small scale: a server with
// a handful of connections allowed, whose /slow answers wait until the test releases them.

interface Running {
  readonly server: Server;
  readonly port: number;
  readonly logs: string[];
  /** Answers every /slow request received so far. */
  release(): void;
  /** /slow requests received and not yet answered. */
  held(): number;
}

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(
    servers.splice(0).map(
      async (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

async function start(
  limits: { maxConnections: number; maxPipelined: number },
  webConfigFile?: string,
): Promise<Running> {
  const logs: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => logs.push(line) });
  const waiting: ServerResponse[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.url === '/slow') waiting.push(res);
    else res.end('ok\n');
  };
  const server = createWebServer(new WebSettings(webConfigFile, logger), handler, logger, limits);
  servers.push(server);
  const address = await listen(server, '127.0.0.1:0', logger);
  return {
    server,
    port: address.port,
    logs,
    release: () => {
      for (const res of waiting.splice(0)) res.end('done\n');
    },
    held: () => waiting.length,
  };
}

/** Opens a connection and resolves once it is established; `closed` tells whether the server closed it. */
async function open(port: number): Promise<{ socket: Socket; closed: () => boolean }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  socket.resume();
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, closed: () => closed };
}

const lines = (logs: string[], message: string): Record<string, unknown>[] =>
  logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === message);

describe('connection limit', () => {
  test('a connection beyond the limit closes the least recently active idle one, so requests get through', async () => {
    const s = await start({ maxConnections: 4, maxPipelined: 4 });
    const idle: Awaited<ReturnType<typeof open>>[] = [];
    for (let i = 0; i < 4; i++) idle.push(await open(s.port));
    // The oldest makes a request, and so becomes the most recently active.
    idle[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually('answered', () => (idle[0]!.socket.bytesRead > 0 ? true : undefined));

    // Each new connection (kept open by a held request) takes the place of the least recently active
    // idle one.
    for (let i = 0; i < 3; i++) {
      const newcomer = await open(s.port);
      newcomer.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
      await eventually('request held', () => (s.held() === i + 1 ? true : undefined));
    }
    await eventually('idle ones closed', () => (idle[3]!.closed() ? true : undefined));
    expect(idle.map((c) => c.closed())).toEqual([false, true, true, true]);
    s.release();
    expect((await httpGet(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);

    // Logged once for the burst (at most once per 10 s, with the count since the last line).
    const logged = lines(
      s.logs,
      'connection limit reached; closing the least recently active idle connection',
    );
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'warn', limit: 4, occurrences: 1 });
  });

  test('idle and slowloris connections are closed 5 s after they opened without a whole request head', async () => {
    const s = await start({ maxConnections: 8, maxPipelined: 4 });
    const idle = await open(s.port);
    const slow = await open(s.port);
    slow.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => slow.socket.write('x-pad: 1\r\n'), 500);
    const opened = Date.now();
    try {
      await eventually('both closed', () => (idle.closed() && slow.closed() ? true : undefined));
    } finally {
      clearInterval(trickle);
    }
    // headersTimeout 5 s, checked every second: not before (timers never fire early), and not
    // never: the slowloris trickles on, so only the timeout closes it, and within a margin of several
    // times the 5 s that no busy machine's late timers reach.
    expect(Date.now() - opened).toBeGreaterThan(4_500);
    expect(Date.now() - opened).toBeLessThan(30_000);
  });

  test('connections with a request in progress are not closed to make room; a newcomer is instead', async () => {
    const s = await start({ maxConnections: 2, maxPipelined: 4 });
    const busy = [await open(s.port), await open(s.port)];
    for (const c of busy) c.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually('both held', () => (s.held() === 2 ? true : undefined));
    const newcomer = await open(s.port);
    await eventually('newcomer closed', () => (newcomer.closed() ? true : undefined));
    expect(busy.map((c) => c.closed())).toEqual([false, false]);
    s.release();
    await eventually('answers arrive', () => (busy.every((c) => c.socket.bytesRead > 0) ? true : undefined));
  });

  test('accept failing for want of descriptors closes idle connections and is logged, throttled', async () => {
    const s = await start({ maxConnections: 64, maxPipelined: 4 });
    const idle = [await open(s.port), await open(s.port)];
    const emfile = (): boolean =>
      s.server.emit(
        'error',
        Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' }),
      );
    emfile();
    emfile();
    await eventually('idle closed', () => (idle.every((c) => c.closed()) ? true : undefined));
    const logged = lines(s.logs, 'cannot accept connections: out of file descriptors; closing idle ones');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'error', occurrences: 1, err: { code: 'EMFILE' } });
    expect((await httpGet(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);
  });

  test('the limit follows the descriptor limit: 512, or half the descriptors if less', () => {
    expect(connectionLimits(undefined).maxConnections).toBe(MAX_CONNECTIONS);
    expect(connectionLimits(1_048_576).maxConnections).toBe(512);
    expect(connectionLimits(1024).maxConnections).toBe(512);
    expect(connectionLimits(256).maxConnections).toBe(128);
    expect(connectionLimits(1).maxConnections).toBe(1);
    const limits = [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max processes             127431               127431               processes ',
      'Max open files            1024                 524288               files     ',
    ].join('\n');
    expect(parseFdLimit(limits)).toBe(1024);
    expect(parseFdLimit(limits.replace('1024   ', 'unlimited'))).toBeUndefined();
    expect(parseFdLimit('')).toBeUndefined();
  });
});

describe('pipelining', () => {
  test('a connection with more requests waiting than allowed is closed; one within the limit is served', async () => {
    const s = await start({ maxConnections: 8, maxPipelined: 3 });
    const within = await open(s.port);
    let answers = '';
    within.socket.on('data', (chunk: Buffer) => (answers += chunk.toString()));
    within.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(3));
    await eventually('three answers', () => (answers.split('HTTP/1.1 200').length === 4 ? true : undefined));
    expect(within.closed()).toBe(false);

    // Requests sent one write at a time, each parsed before the next arrives: the fourth waiting one
    // closes the connection, and never reaches the handler.
    const oneByOne = await open(s.port);
    for (let i = 1; i <= 3; i++) {
      oneByOne.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
      await eventually('request held', () => (s.held() === i ? true : undefined));
    }
    oneByOne.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually('closed at the fourth', () => (oneByOne.closed() ? true : undefined));
    expect(s.held()).toBe(3);
    const logged = lines(s.logs, 'closing a connection that pipelines requests without reading the answers');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'warn', limit: 3 });
    // A client's address is personal data: it is not logged (docs/security.md).
    expect(logged[0]).not.toHaveProperty('remote');
    expect(JSON.stringify(logged[0])).not.toContain('127.0.0.1');
    expect((await httpGet(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);
  });

  test('a read of more pipelined requests than allowed closes its connection before Node parses it', async () => {
    const s = await start({ maxConnections: 8, maxPipelined: 4 });
    // Every request object Node builds is emitted as 'request', whatever our handler then does.
    let built = 0;
    s.server.on('request', () => built++);
    const flood = await open(s.port);
    // 1,000 requests in one write, the attack of BENCHMARKS.md "The flood" (42 KB: one read).
    flood.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(1000));
    await eventually('flood closed', () => (flood.closed() ? true : undefined));
    // Without the screen, Node parsed the whole read: 1,000 requests built, 4 held, the rest refused.
    expect(built).toBeLessThanOrEqual(4);
    expect(s.held()).toBeLessThanOrEqual(4);
    expect(
      lines(s.logs, 'closing a connection that pipelines requests without reading the answers'),
    ).toHaveLength(1);

    // Requests that arrive a few bytes at a time are served as before.
    const trickle = await open(s.port);
    let answers = '';
    trickle.socket.on('data', (chunk: Buffer) => (answers += chunk.toString()));
    const requests = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2);
    for (let at = 0; at < requests.length; at += 7) {
      trickle.socket.write(requests.slice(at, at + 7));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await eventually('two answers', () => (answers.split('HTTP/1.1 200').length === 3 ? true : undefined));
    expect(trickle.closed()).toBe(false);
    expect((await httpGet(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);
  });
});

describe('over TLS', () => {
  const pki = makePki();
  const cert = pki.server('guard');
  const ca = pki.read(pki.caCert);

  async function startTls(limits: { maxConnections: number; maxPipelined: number }): Promise<Running> {
    const dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-guard-'));
    const file = join(dir, 'web-config.yml');
    writeFileSync(file, `tls_server_config:\n  cert_file: ${cert.cert}\n  key_file: ${cert.key}\n`);
    return start(limits, file);
  }

  async function openTls(port: number): Promise<{ socket: TLSSocket; closed: () => boolean }> {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' });
    sockets.push(socket);
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    return { socket, closed: () => closed };
  }

  test('pipelined requests are screened on the TLS socket, and idle TLS connections make room', async () => {
    const s = await startTls({ maxConnections: 3, maxPipelined: 2 });
    let built = 0;
    s.server.on('request', () => built++);
    const flood = await openTls(s.port);
    flood.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20));
    await eventually('flood closed', () => (flood.closed() ? true : undefined));
    // The decrypted read held 20 requests: dropped before Node parsed it.
    expect(built).toBeLessThanOrEqual(2);
    expect(s.held()).toBeLessThanOrEqual(2);

    const idle = [await openTls(s.port), await openTls(s.port), await openTls(s.port)];
    const reply = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: s.port, path: '/healthz', ca, agent: false },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(reply).toBe(200);
    await eventually('oldest idle closed', () => (idle[0]!.closed() ? true : undefined));
  });
});
