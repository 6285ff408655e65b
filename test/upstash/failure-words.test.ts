import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { DEMO_QSTASH_TOKEN } from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { NetworkError, TimeoutError, UpstashError } from '../../src/upstash/errors.js';
import { failureWords, networkCause } from '../../src/upstash/failure-words.js';
import { makePki } from '../server/tls-fixtures.js';

// What the landing page says of a failed connection: the words come from real failures on
// 127.0.0.1 (refused, reset, a certificate not trusted, a silent server), and from the codes Node
// and undici give for those a test cannot make here (DNS), as plain errors of their shape.

const QSTASH = { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } } as const;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function client(timeoutMs = 5000): UpstashClient {
  const c = new UpstashClient({
    timeoutMs,
    retries: 0,
    concurrency: 1,
    userAgent: 'upstash-exporter/0.0.0-test',
    random: () => 0,
  });
  closers.push(() => c.close());
  return c;
}

async function listen(server: NetServer): Promise<number> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return (server.address() as AddressInfo).port;
}

async function failure(url: string, timeoutMs?: number): Promise<UpstashError> {
  const error: unknown = await client(timeoutMs)
    .getJson({ url, credentials: QSTASH })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(UpstashError);
  return error as UpstashError;
}

describe('a failure in words', () => {
  test('a refused connection', async () => {
    const port = await listen(createNetServer());
    await closers.pop()?.();
    const error = await failure(`http://127.0.0.1:${port}/v2/flowControl/`);
    expect(error).toBeInstanceOf(NetworkError);
    expect(failureWords(error)).toBe('connection refused');
  });

  test('a connection the server closes without an answer', async () => {
    const port = await listen(createNetServer((socket) => socket.destroy()));
    const words = failureWords(await failure(`http://127.0.0.1:${port}/v2/flowControl/`));
    expect(['connection closed by the server', 'connection reset by the peer']).toContain(words);
  });

  test('a certificate not trusted, never the subject or the URL', async () => {
    const pki = makePki();
    const { cert, key } = pki.server('upstash-test');
    const port = await listen(createTlsServer({ cert: pki.read(cert), key: pki.read(key) }));
    const error = await failure(`https://127.0.0.1:${port}/v2/flowControl/?token=secret-in-query`);
    const words = failureWords(error) ?? '';
    expect(words).toMatch(/^TLS: certificate not trusted/);
    expect(words).not.toMatch(/127\.0\.0\.1|upstash-test|secret/);
  });

  test('a timeout says its bound', async () => {
    // Accepts and never answers: the client's own timer ends it.
    const port = await listen(createNetServer(() => undefined));
    const error = await failure(`http://127.0.0.1:${port}/v2/flowControl/`, 300);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(failureWords(error)).toBe('no answer within 0.3 s');
    expect(failureWords(new TimeoutError('GET', 'http://x/', 10_000))).toBe('no answer within 10 s');
  });

  test('the codes Node and undici give, found in the cause chain; an unknown code is "connection failed"', () => {
    const coded = (code: string, cause?: unknown) => Object.assign(new Error('x'), { code, cause });
    expect(networkCause(coded('ENOTFOUND'))).toBe('DNS lookup failed: no such host');
    expect(networkCause(coded('EAI_AGAIN'))).toBe('DNS lookup failed: temporary failure');
    expect(networkCause(coded('UND_ERR_SOCKET', coded('ECONNRESET')))).toBe(
      'connection closed by the server',
    );
    expect(networkCause(coded('SOMETHING', coded('CERT_HAS_EXPIRED')))).toBe('TLS: certificate expired');
    expect(networkCause(coded('ERR_SSL_SOME_NEW_REASON'))).toBe('TLS: handshake failed');
    expect(networkCause(coded('E_NEW'))).toBe('connection failed');
    expect(networkCause(undefined)).toBe('connection failed');
    // The reason says it all for the others.
    expect(failureWords(new Error('x'))).toBeUndefined();
  });
});
