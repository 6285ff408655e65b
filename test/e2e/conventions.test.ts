import { writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { gunzipSync } from 'node:zlib';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
} from '../../src/demo/simulator.js';
import {
  runToExit,
  startExporter,
  waitForStatus,
  writeConfig,
  type ExporterProcess,
} from '../helpers/exporter-process.js';
import { makePki, type Pki } from '../server/tls-fixtures.js';
import { namesIn } from '../helpers/exposition-parser.js';

// The conventions of docs/operations.md (Endpoints, Reloading the configuration) against the built program:
// Prometheus's probe names, probes open under basic auth (the TLS layer's client-certificate policy kept),
// POST /-/reload behind --web.enable-lifecycle, and metrics.allow/deny.

const PASSWORD = 'scrape-pw-Conv9SECRETq';
// Cost 4 keeps the tests fast; the cost is whatever the hash says.
const HASH = bcrypt.hashSync(PASSWORD, 4);
const AUTH = { authorization: `Basic ${Buffer.from(`prometheus:${PASSWORD}`).toString('base64')}` };
const PROBES = ['/healthz', '/readyz', '/-/healthy', '/-/ready'];

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

interface CallOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** HTTPS with these: the CA to trust, and a client certificate. */
  readonly tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
}

/** One request over a fresh connection, to the exporter's port; the body as bytes. */
async function call(port: number, path: string, options: CallOptions = {}): Promise<Reply> {
  const base = { host: '127.0.0.1', port, path, method: options.method ?? 'GET', agent: false };
  const headers = options.headers ?? {};
  return new Promise((resolve, reject) => {
    const done = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    };
    const req =
      options.tls === undefined
        ? httpRequest({ ...base, headers }, done)
        : httpsRequest({ ...base, headers, ...options.tls }, done);
    req.on('error', reject);
    req.end();
  });
}

const portOf = (exporter: ExporterProcess): number => Number(new URL(exporter.url).port);

/** /metrics in both formats, gzip and not, as text. */
async function bodies(port: number, options: CallOptions = {}): Promise<string[]> {
  const out: string[] = [];
  for (const accept of ['text/plain', 'application/openmetrics-text; version=1.0.0']) {
    for (const encoding of ['identity', 'gzip']) {
      const reply = await call(port, '/metrics', {
        ...options,
        headers: { ...options.headers, accept, 'accept-encoding': encoding },
      });
      expect(reply.status).toBe(200);
      out.push((encoding === 'gzip' ? gunzipSync(reply.body) : reply.body).toString('utf8'));
    }
  }
  return out;
}

describe('Prometheus names and the lifecycle API switched off', () => {
  it('/-/healthy and /-/ready answer as /healthz and /readyz, before and after the first polls', async () => {
    const sim = await startSimulator();
    // Long enough that the first probes come before the first poll ends, even on a busy machine.
    sim.setFault('flow_control', { kind: 'delay', ms: 4000 });
    const exporter = await startExporter([], { QSTASH_TOKEN: DEMO_QSTASH_TOKEN, QSTASH_URL: sim.url });
    try {
      const port = portOf(exporter);
      const compare = async (ours: string, theirs: string, status: number): Promise<void> => {
        const [a, b] = [await call(port, ours), await call(port, theirs)];
        expect([a.status, b.status], `${ours} ${theirs}`).toEqual([status, status]);
        expect(b.body.toString(), theirs).toBe(a.body.toString());
        expect(b.headers['content-type'], theirs).toBe(a.headers['content-type']);
      };
      await compare('/readyz', '/-/ready', 503);
      await compare('/healthz', '/-/healthy', 200);
      await waitForStatus(`${exporter.url}/-/ready`, 200);
      await compare('/readyz', '/-/ready', 200);
      // HEAD too, with no body.
      const head = await call(port, '/-/ready', { method: 'HEAD' });
      expect([head.status, head.body.length]).toEqual([200, 0]);

      // Without --web.enable-lifecycle: 403 naming the flag; GET is 405 enabled or not.
      const post = await call(port, '/-/reload', { method: 'POST' });
      expect(post.status).toBe(403);
      expect(post.body.toString()).toContain('--web.enable-lifecycle');
      const get = await call(port, '/-/reload');
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe('POST, PUT');
      expect(exporter.stdout()).not.toContain('configuration reloaded');
    } finally {
      expect(await exporter.stop()).toBe(0);
      await sim.stop();
    }
  });
});

describe('POST /-/reload with web_enable_lifecycle: true', () => {
  let sim: Simulator;
  let exporter: ExporterProcess;
  let file: string;
  let port: number;

  /** The config file: QStash `sources` and `metrics`, with whatever else `extra` adds. */
  const yaml = (sources: string, metrics = '', extra = ''): string => `
web_enable_lifecycle: true
${metrics}
qstash:
  - name: eu
    url: ${sim.url}
    token: ${DEMO_QSTASH_TOKEN}
    interval: 1h
    sources: [${sources}]
${extra}`;

  beforeAll(async () => {
    sim = await startSimulator();
    file = writeConfig('placeholder: true\n');
    writeFileSync(file, yaml('flow_control'));
    exporter = await startExporter(['--config', file]);
    port = portOf(exporter);
    await waitForStatus(`${exporter.url}/readyz`, 200);
  });

  afterAll(async () => {
    await exporter.stop();
    await sim.stop();
  });

  it('applies a changed file before answering 200: the next page and scrape show it', async () => {
    const before = (await call(port, '/')).body.toString();
    expect(before).toContain('flow_control');
    expect(before).not.toContain('url_groups');
    expect(namesIn((await bodies(port))[0]!).has('upstash_qstash_flow_control_keys')).toBe(true);

    writeFileSync(
      file,
      yaml('flow_control, url_groups', 'metrics:\n  deny: ["upstash_qstash_flow_control_.*", "nodejs_.*"]'),
    );
    const reply = await call(port, '/-/reload', { method: 'POST' });
    expect(reply.status).toBe(200);
    expect(reply.body.toString()).toBe('configuration reloaded\n');
    // At once, no waiting: the new source is on the page, the denied families gone from every body.
    expect((await call(port, '/')).body.toString()).toContain('url_groups');
    for (const body of await bodies(port)) {
      const names = [...namesIn(body)];
      expect(names).toContain('upstash_up');
      for (const name of names) expect(name).not.toMatch(/^(upstash_qstash_flow_control_|nodejs_)/);
    }
  });

  it('an invalid file: 400 with the lines --check-config prints, no secret, the running one kept', async () => {
    const secret = 'tok-in-wrong-key-SECRET-x9';
    writeFileSync(
      file,
      yaml('url_groups', 'metrics:\n  allow: ["upstash_(up"]', `    tokn: ${secret}\nhttp:\n  retries: 99\n`),
    );
    const reply = await call(port, '/-/reload', { method: 'PUT' });
    expect(reply.status).toBe(400);
    const check = await runToExit(['--config', file, '--check-config']);
    expect(check.code).toBe(2);
    expect(reply.body.toString()).toBe(check.stderr);
    const lines = reply.body.toString().trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines).toContain(
      'upstash-exporter: config: metrics.allow[0]: is not a valid regular expression (RE2 syntax): missing closing )',
    );
    expect(reply.body.toString()).not.toContain(secret);
    expect(reply.body.toString()).not.toContain('upstash_(up');
    expect(reply.body.toString()).not.toContain(DEMO_QSTASH_TOKEN);
    // The running configuration stays: both sources, the same families left out.
    expect((await call(port, '/')).body.toString()).toContain('flow_control');
    expect(namesIn((await bodies(port))[1]!).has('nodejs_eventloop_lag_seconds')).toBe(false);
    expect(exporter.stdout()).toContain('configuration invalid; keeping the running one');
    expect(exporter.stdout()).not.toContain(secret);
  });

  it('concurrent reloads all answer, sharing the pending one', async () => {
    writeFileSync(file, yaml('flow_control'));
    const replies = await Promise.all(
      Array.from({ length: 20 }, async () => call(port, '/-/reload', { method: 'POST' })),
    );
    for (const reply of replies) expect(reply.status).toBe(200);
    // The last file applied: one source, every family again.
    expect((await call(port, '/')).body.toString()).not.toContain('url_groups');
    expect(namesIn((await bodies(port))[0]!).has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('--check-config shows both settings, and --help lists the flags', async () => {
    writeFileSync(file, yaml('flow_control', 'metrics:\n  allow: ["upstash_.*"]\n  deny: [upstash_up]'));
    const check = await runToExit(['--config', file, '--check-config']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('web_enable_lifecycle: true');
    expect(check.stdout).toContain('metrics: allow upstash_.*; deny upstash_up');
    const flags = await runToExit(['--config', file, '--check-config', '--metrics.deny', 'process_.*']);
    expect(flags.stdout).toContain('metrics: allow upstash_.*; deny process_.*');
    const bad = await runToExit(['--config', file, '--check-config', '--metrics.allow', '(']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'upstash-exporter: config: --metrics.allow[0]: is not a valid regular expression (RE2 syntax): missing closing )\n',
    );
    const help = await runToExit(['--help']);
    for (const flag of ['--web.enable-lifecycle', '--metrics.allow REGEX', '--metrics.deny REGEX'])
      expect(help.stdout).toContain(flag);
  });
});

describe('under TLS and basic auth', () => {
  let pki: Pki;
  let ca: Buffer;
  let sim: Simulator;

  beforeAll(async () => {
    pki = makePki();
    ca = pki.read(pki.caCert);
    sim = await startSimulator();
  });

  afterAll(async () => sim.stop());

  /** The exporter with a web config of `web` lines and the flags given, polling the simulator. */
  async function start(web: string[], flags: string[]): Promise<ExporterProcess> {
    const config = writeConfig(`
management:
  - name: main
    url: ${sim.url}
    email: ${DEMO_EMAIL}
    api_key: ${DEMO_API_KEY}
    databases: [db-demo-cache]
    sources: [redis_stats]
    interval: 1h
`);
    const webConfig = config.replace(/config\.yml$/, 'web.yml');
    writeFileSync(webConfig, `${web.join('\n')}\nbasic_auth_users:\n  prometheus: ${HASH}\n`);
    return startExporter(['--config', config, '--web.config.file', webConfig, ...flags]);
  }

  it('probes are open; /, /metrics and /-/reload need the password; the allow list applies', async () => {
    const server = pki.server('conventions-tls');
    const exporter = await start(
      ['tls_server_config:', `  cert_file: ${server.cert}`, `  key_file: ${server.key}`],
      ['--web.enable-lifecycle', '--metrics.allow', 'upstash_up', '--metrics.allow', 'upstash_redis_.*'],
    );
    try {
      const port = portOf(exporter);
      const tls = { ca };
      for (const path of PROBES) {
        const reply = await call(port, path, { tls });
        expect([200, 503], path).toContain(reply.status);
        expect(reply.headers['www-authenticate'], path).toBeUndefined();
      }
      for (const [path, method] of [
        ['/', 'GET'],
        ['/metrics', 'GET'],
        ['/-/reload', 'POST'],
      ] as const) {
        const reply = await call(port, path, { tls, method });
        expect(reply.status, path).toBe(401);
        expect(reply.headers['www-authenticate'], path).toMatch(/^Basic /);
      }
      expect(exporter.stdout()).not.toContain('reload requested over HTTP');
      const reload = await call(port, '/-/reload', { tls, method: 'POST', headers: AUTH });
      expect(reload.status).toBe(200);
      // upstash_up comes with the first poll, which the exporter does not wait for to listen.
      const deadline = Date.now() + 30_000;
      while ((await call(port, '/readyz', { tls })).status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (const body of await bodies(port, { tls, headers: AUTH })) {
        const names = [...namesIn(body)];
        // The exporter's log, should a body lack the health series: what its poll worker said.
        expect(names, exporter.stdout()).toContain('upstash_up');
        for (const name of names) expect(name).toMatch(/^(upstash_up|upstash_redis_.*)$/);
      }
      expect(exporter.stdout()).not.toContain(PASSWORD);
    } finally {
      expect(await exporter.stop()).toBe(0);
    }
  });

  it("mutual TLS: the probes need no password, but the TLS layer's client-certificate policy stays", async () => {
    const server = pki.server('conventions-mtls');
    const client = pki.client('conventions-client');
    const exporter = await start(
      [
        'tls_server_config:',
        `  cert_file: ${server.cert}`,
        `  key_file: ${server.key}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        `  client_ca_file: ${pki.caCert}`,
      ],
      [],
    );
    try {
      const port = portOf(exporter);
      const withCert = { ca, cert: pki.read(client.cert), key: pki.read(client.key) };
      for (const path of PROBES) {
        await expect(call(port, path, { tls: { ca } }), path).rejects.toThrow();
        const reply = await call(port, path, { tls: withCert });
        expect([200, 503], path).toContain(reply.status);
      }
      expect((await call(port, '/metrics', { tls: withCert })).status).toBe(401);
      // The lifecycle API is off here: 403 once authenticated.
      expect((await call(port, '/-/reload', { tls: withCert, method: 'POST', headers: AUTH })).status).toBe(
        403,
      );
    } finally {
      expect(await exporter.stop()).toBe(0);
    }
  });
});
