import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { httpCall, startHarness, type Harness, type Reply } from '../helpers/harness.js';

// docs/operations.md, Endpoints: our paths answer GET and HEAD; any other method on them gets 405 with
// `Allow: GET, HEAD`, whatever the method — CONNECT included, which Node's server hands to a separate
// event and, without a listener, answers by closing the connection. (/-/reload takes POST and PUT
// instead: test/server/lifecycle.test.ts.)

const PATHS = ['/', '/metrics', '/healthz', '/readyz', '/-/healthy', '/-/ready'];

interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Sends `text` on a fresh connection and parses the one answer, read until the server closes. */
async function raw(port: number, text: string): Promise<RawReply> {
  const received = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(30_000, () =>
      socket.destroy(new Error(`no answer to ${JSON.stringify(text)}: ${data}`)),
    );
  });
  const split = received.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = received.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: received.slice(split + 4) };
}

async function call(port: number, method: string, path: string): Promise<Reply> {
  return httpCall(`http://127.0.0.1:${port}${path}`, method);
}

describe('methods', () => {
  let h: Harness;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-methods-'));
    const file = join(dir, 'web-config.yml');
    writeFileSync(file, 'http_server_config:\n  headers:\n    X-Frame-Options: deny\n');
    h = await startHarness({ webConfigFile: file, intervalSeconds: 30 });
  });
  afterAll(async () => h.stop());

  test('GET and HEAD answer on every path; HEAD with the headers of GET and no body', async () => {
    for (const path of PATHS) {
      const get = await call(h.address.port, 'GET', path);
      const head = await call(h.address.port, 'HEAD', path);
      expect(head.status, path).toBe(get.status);
      expect(head.headers['content-type'], path).toBe(get.headers['content-type']);
      expect(head.body, path).toBe('');
    }
  });

  test('any other method gets 405 with Allow: GET, HEAD on our paths, 404 elsewhere', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND']) {
      for (const path of PATHS) {
        const reply = await call(h.address.port, method, path);
        expect(reply.status, `${method} ${path}`).toBe(405);
        expect(reply.headers.allow, `${method} ${path}`).toBe('GET, HEAD');
      }
      expect((await call(h.address.port, method, '/nowhere')).status, method).toBe(404);
    }
  });

  test('CONNECT gets 405 with Allow: GET, HEAD and the configured headers, then the connection closes', async () => {
    for (const target of ['/metrics', 'example.com:443', '127.0.0.1:22']) {
      const reply = await raw(h.address.port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      expect(reply.status, target).toBe(405);
      expect(reply.headers.allow, target).toBe('GET, HEAD');
      expect(reply.headers['x-frame-options'], target).toBe('deny');
      expect(reply.headers.connection, target).toBe('close');
      expect(reply.body, target).toBe('method not allowed\n');
    }
    // The server is none the worse for it.
    expect((await h.get('/healthz')).status).toBe(200);
  });
});
