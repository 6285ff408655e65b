import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import bcrypt from 'bcryptjs';
import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { landingPageCsp } from '../../src/server/landing-page.js';
import { parseWebConfig } from '../../src/server/web-config.js';
import { eventually, httpGet, leakedSecret, useHarness, type Harness } from '../helpers/harness.js';
import { makePki } from './tls-fixtures.js';

const PASSWORD = 'scrape-pw-Zq81SECRETx';
const OTHER_PASSWORD = 'scrape-pw-2nd-Lm4SECRETy';
// Cost 4 keeps the tests fast; the cost is whatever the hash says.
const HASH = bcrypt.hashSync(PASSWORD, 4);
const OTHER_HASH = bcrypt.hashSync(OTHER_PASSWORD, 4);

const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

const exporter = useHarness();

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'upstash-exporter-web-'));
}

/** Writes a file atomically (rename), as config management and cert-manager do. */
function writeAtomically(path: string, text: string | Buffer): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

async function start(webConfig: string, dir = tempDir()): Promise<{ h: Harness; file: string }> {
  const file = join(dir, 'web-config.yml');
  writeFileSync(file, webConfig);
  const h = await exporter({ webConfigFile: file, intervalSeconds: 30 });
  return { h, file };
}

interface TlsReply {
  status: number;
  body: string;
  serial: string;
}

function httpsGet(
  port: number,
  path: string,
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer },
  headers: Record<string, string> = {},
): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, headers, agent: false, ...tls }, (res) => {
      const serial = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().serialNumber : '';
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), serial });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('basic auth (web config basic_auth_users)', () => {
  test('absent, malformed, wrong and unknown credentials get 401 with WWW-Authenticate; right ones pass', async () => {
    const { h } = await start(`basic_auth_users:\n  prometheus: ${HASH}\n`);
    const refusals = [
      {},
      { authorization: 'Bearer something' },
      { authorization: 'Basic !!!not-base64' },
      basic('prometheus', 'wrong'),
      basic('nobody', PASSWORD),
      basic('prometheus', ''),
    ];
    for (const headers of refusals) {
      for (const path of ['/metrics', '/', '/-/reload', '/nope']) {
        const reply = await h.get(path, headers);
        expect(reply.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(reply.headers['www-authenticate']).toMatch(/^Basic realm="upstash-exporter"/);
        expect(reply.body).toBe('unauthorized\n');
      }
    }
    const ok = await h.get('/metrics', basic('prometheus', PASSWORD));
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('upstash_exporter_build_info');
    expect((await h.get('/', basic('prometheus', PASSWORD))).status).toBe(200);
    // The probes stay open (docs/operations.md, Endpoints): they say only up or not, and must not need a
    // secret.
    for (const path of ['/healthz', '/-/healthy']) {
      const reply = await h.get(path);
      expect(reply.status, path).toBe(200);
      expect(reply.body, path).toBe('ok\n');
    }
    for (const path of ['/readyz', '/-/ready']) {
      const reply = await h.get(path);
      expect([200, 503], path).toContain(reply.status);
      expect(reply.headers['www-authenticate'], path).toBeUndefined();
    }
    // Logs, even at debug level, carry neither the password nor its hash.
    const logs = h.logs.join('');
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain(HASH);
    expect(leakedSecret(logs)).toBeUndefined();
  });

  test('configured headers are on every answer, 401 included', async () => {
    const { h } = await start(
      [
        'http_server_config:',
        '  headers:',
        '    X-Frame-Options: deny',
        '    Content-Security-Policy: "default-src \'none\'"',
        'basic_auth_users:',
        `  prometheus: ${HASH}`,
        '',
      ].join('\n'),
    );
    for (const reply of [
      await h.get('/metrics'),
      await h.get('/', basic('prometheus', PASSWORD)),
      await h.get('/healthz'),
    ]) {
      expect(reply.headers['x-frame-options']).toBe('deny');
      expect(reply.headers['content-security-policy']).toBe("default-src 'none'");
    }
  });

  test('the landing page sends its own strict CSP when none is configured, and reads its view from the query', async () => {
    const { h } = await start('');
    const page = await h.get('/');
    expect(page.headers['content-security-policy']).toBe(landingPageCsp());
    expect(page.body).toContain('<meta http-equiv="refresh" content="30">');
    expect(page.body).toMatch(/<tr id="u\d+" data-text/);
    // Only the page's: /metrics is no document.
    expect((await h.get('/metrics')).headers['content-security-policy']).toBeUndefined();
    const still = await h.get('/?refresh=0&filter=nothing-matches-this');
    expect(still.body).not.toContain('http-equiv="refresh"');
    expect(still.body).toContain('value="nothing-matches-this"');
    expect(still.body).not.toMatch(/<tr id="u\d+" data-text/);
  });

  test('a changed file applies without restart; an invalid one is logged and the previous one kept', async () => {
    const { h, file } = await start(`basic_auth_users:\n  prometheus: ${HASH}\n`);
    expect((await h.get('/metrics', basic('prometheus', PASSWORD))).status).toBe(200);

    writeAtomically(file, `basic_auth_users:\n  prometheus: ${OTHER_HASH}\n`);
    expect((await h.get('/metrics', basic('prometheus', PASSWORD))).status).toBe(401);
    expect((await h.get('/metrics', basic('prometheus', OTHER_PASSWORD))).status).toBe(200);

    // A plain password typed instead of a hash: rejected, not echoed, and the last good users stay.
    writeAtomically(file, `basic_auth_users:\n  prometheus: ${PASSWORD}\n`);
    expect((await h.get('/metrics', basic('prometheus', OTHER_PASSWORD))).status).toBe(200);
    expect((await h.get('/metrics', basic('prometheus', PASSWORD))).status).toBe(401);
    const invalid = h.logs.filter((line) => line.includes('web config invalid'));
    expect(invalid).toHaveLength(1);
    expect(invalid[0]).toContain('basic_auth_users.prometheus');
    expect(h.logs.join('')).not.toContain(PASSWORD);
  });
});

describe('web config validation', () => {
  const problems = (text: string): string[] => {
    try {
      parseWebConfig(text, 'web.yml', tempDir());
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.map((p) => `${p.path}: ${p.message}`);
      throw error;
    }
    return [];
  };

  test('every problem is named, without echoing values', () => {
    const found = problems(
      [
        'tls_server_config:',
        '  cert_file: missing.crt',
        '  key_file: missing.key',
        '  client_auth_type: RequireAndVerifyClientCert',
        'http_server_config:',
        '  headers:',
        '    Set-Cookie: x',
        'basic_auth_users:',
        '  admin: hunter2-plain',
        'unknown_key: 1',
      ].join('\n'),
    );
    expect(found.join('\n')).not.toContain('hunter2');
    expect(found).toEqual(
      expect.arrayContaining([expect.stringContaining('unknown_key: is not a known key')]),
    );
    expect(problems('basic_auth_users:\n  admin: hunter2-plain\n')).toEqual([
      expect.stringMatching(/^web\.yml: basic_auth_users\.admin: must be a bcrypt hash/),
    ]);
    const tls = problems(
      'tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n  client_auth_type: RequireAndVerifyClientCert\nhttp_server_config:\n  headers:\n    Set-Cookie: x\n',
    );
    expect(tls).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          'client_ca_file: is required with client_auth_type RequireAndVerifyClientCert',
        ),
        expect.stringContaining('cert_file: cannot read'),
        expect.stringContaining('key_file: cannot read'),
        expect.stringContaining('headers.Set-Cookie: is not a header that may be set'),
      ]),
    );
  });
});

describe('TLS (web config tls_server_config)', () => {
  const pki = makePki();
  const ca = pki.read(pki.caCert);

  test('serves HTTPS only; plain HTTP on the same port gets no answer', async () => {
    const server = pki.server('tls-only');
    const { h } = await start(`tls_server_config:\n  cert_file: ${server.cert}\n  key_file: ${server.key}\n`);
    const reply = await httpsGet(h.address.port, '/metrics', { ca });
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('upstash_exporter_build_info');
    // A client that does not trust our CA refuses us.
    await expect(httpsGet(h.address.port, '/metrics', {})).rejects.toThrow(
      /self.signed|unable to verify|certificate/i,
    );
    await expect(httpGet(`http://127.0.0.1:${h.address.port}/metrics`)).rejects.toThrow();
  });

  test('mutual TLS: RequireAndVerifyClientCert admits only certificates of the client CA', async () => {
    const server = pki.server('mtls');
    const good = pki.client('good-client');
    const rogue = pki.client('rogue-client', true);
    const { h } = await start(
      [
        'tls_server_config:',
        `  cert_file: ${server.cert}`,
        `  key_file: ${server.key}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        `  client_ca_file: ${pki.caCert}`,
        '  min_version: TLS12',
        '',
      ].join('\n'),
    );
    const port = h.address.port;
    const ok = await httpsGet(port, '/metrics', { ca, cert: pki.read(good.cert), key: pki.read(good.key) });
    expect(ok.status).toBe(200);
    await expect(httpsGet(port, '/metrics', { ca })).rejects.toThrow();
    await expect(
      httpsGet(port, '/metrics', { ca, cert: pki.read(rogue.cert), key: pki.read(rogue.key) }),
    ).rejects.toThrow();
    const refused = h.logs.filter((line) => line.includes('TLS connection refused'));
    expect(refused.length).toBeGreaterThan(0);
    // Nor the client's address: an IP is personal data.
    for (const line of refused) expect(line).not.toContain('127.0.0.1');
  });

  test('TLS and basic auth together', async () => {
    const server = pki.server('tls-auth');
    const { h } = await start(
      `tls_server_config:\n  cert_file: ${server.cert}\n  key_file: ${server.key}\nbasic_auth_users:\n  prometheus: ${HASH}\n`,
    );
    expect((await httpsGet(h.address.port, '/metrics', { ca })).status).toBe(401);
    expect((await httpsGet(h.address.port, '/metrics', { ca }, basic('prometheus', PASSWORD))).status).toBe(
      200,
    );
    expect((await httpsGet(h.address.port, '/healthz', { ca })).status).toBe(200);
  });

  test('a rotated certificate is served on the next connection, without restart; a broken one is not', async () => {
    const dir = tempDir();
    const first = pki.server('rotate-1');
    const second = pki.server('rotate-2');
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    writeFileSync(cert, pki.read(first.cert));
    writeFileSync(key, pki.read(first.key));
    const { h } = await start(`tls_server_config:\n  cert_file: tls.crt\n  key_file: tls.key\n`, dir);
    const port = h.address.port;
    const before = await httpsGet(port, '/healthz', { ca });

    // Half-way through a rotation (new cert, old key) the pair does not match: the old one stays.
    writeAtomically(cert, pki.read(second.cert));
    const during = await httpsGet(port, '/healthz', { ca });
    expect(during.serial).toBe(before.serial);
    expect(h.logs.some((line) => line.includes('web config invalid'))).toBe(true);

    writeAtomically(key, pki.read(second.key));
    const after = await eventually('new certificate served', async () => {
      const reply = await httpsGet(port, '/healthz', { ca });
      return reply.serial === before.serial ? undefined : reply;
    });
    expect(after.status).toBe(200);
    expect(h.logs.some((line) => line.includes('web config reloaded'))).toBe(true);
  });
});
