import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEMO_API_KEY, DEMO_QSTASH_TOKEN, startSimulator } from '../../src/demo/simulator.js';
import {
  MAIN,
  runToExit,
  START_LIMIT_MS,
  startExporter,
  waitForStatus,
  writeConfig,
} from '../helpers/exporter-process.js';
import { eventually } from '../helpers/harness.js';

describe('command line', () => {
  it('prints help and version', async () => {
    const help = await runToExit(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--web.listen-address');
    const version = await runToExit(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(
      /^upstash-exporter, version \d+\.\d+\.\d+ \(revision: \S+\)\n {2}node version: +v\d+/,
    );
  });

  it('exits 2 on an unknown flag', async () => {
    const result = await runToExit(['--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--no-such-flag');
  });

  it('--web.telemetry-path: exits 2 on a path that is not one, and --check-config says where the metrics are', async () => {
    const bad = await runToExit(['--web.telemetry-path', 'metrics', '--demo', '--check-config']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--web.telemetry-path: must be a path such as /metrics');
    const good = await runToExit(['--web.telemetry-path', '/prometheus/metrics', '--demo', '--check-config']);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('metrics at /prometheus/metrics');
  });

  it('exits 2 with one line per problem, naming the field, no stack trace and no secret', async () => {
    const config = writeConfig(`
listen_address: "nope"
qstash:
  - name: eu
    token: super-secret-token-value
    interval: 7s
    tokn: another-secret-value
  - name: eu
    token: \${UNSET_VARIABLE_FOR_TEST}
management:
  - name: main
    email: ops@example.com
    api_key_file: missing-file
    databases: []
`);
    const result = await runToExit(['--config', config]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) expect(line).toMatch(/^upstash-exporter: config: /);
    expect(result.stderr).toContain('qstash[0].tokn: is not a known key; did you mean token?');
    expect(result.stderr).toContain('UNSET_VARIABLE_FOR_TEST');
    expect(result.stderr).toContain('listen_address');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain('super-secret-token-value');
    expect(result.stderr).not.toContain('another-secret-value');
  });

  it('reports every problem of a file whose structure is fine but whose values are not', async () => {
    const config = writeConfig(`
qstash:
  - name: eu
    token: t
    interval: 7s
  - name: eu
    token: t
management:
  - name: main
    email: ops@example.com
    api_key_file: missing-file
    databases: [a]
`);
    const result = await runToExit(['--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('qstash[0].interval: must be an interval cron can express evenly');
    expect(result.stderr).toContain('qstash[1].name: duplicates the name');
    expect(result.stderr).toMatch(/management\[0\]\.api_key_file: cannot read .*missing-file: no such file/);
  });

  it('exits 2 with a how-to when nothing is configured', async () => {
    const result = await runToExit([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no source configured: set QSTASH_TOKEN');
  });

  // Management credentials without databases discover every database, and --check-config says so
  // (they used to exit 2).
  it('management credentials without databases discover every database', async () => {
    const result = await runToExit(['--check-config'], {
      UPSTASH_EMAIL: 'ops@example.com',
      UPSTASH_API_KEY: 'api-secret-xyz',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'sources databases, redis_stats, redis_backups, qstash_users, qstash_stats, vector_indexes, vector_stats, search_indexes, search_stats, audit_logs, qstash_egress_ips, databases discovered (all)',
    );
    expect(result.stdout).toContain('redis_backups every 3600s');
    expect(result.stdout).toContain('audit_logs every 300s (1 request)');
    expect(result.stdout).not.toContain('api-secret-xyz');
  });

  it('--check-config prints a redacted summary and exits 0', async () => {
    const result = await runToExit(['--check-config'], {
      QSTASH_TOKEN: 'qstash-secret-abc',
      UPSTASH_EMAIL: 'ops@example.com',
      UPSTASH_API_KEY: 'api-secret-xyz',
      UPSTASH_REDIS_DATABASES: 'db-1, db-2',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('qstash default: https://qstash.upstash.io, token <redacted>');
    expect(result.stdout).toContain('databases db-1, db-2');
    expect(result.stdout).not.toContain('qstash-secret-abc');
    expect(result.stdout).not.toContain('api-secret-xyz');
  });

  it('exits 1 when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const result = await runToExit(['--web.listen-address', `127.0.0.1:${port}`], { QSTASH_TOKEN: 't' });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('cannot start');
      // Also on stderr, for whoever reads only that.
      expect(result.stderr).toMatch(/^upstash-exporter: cannot start: .*EADDRINUSE/m);
    } finally {
      blocker.close();
    }
  });

  it('is not ready until every source has finished its first poll, then stops cleanly on SIGTERM', async () => {
    const sim = await startSimulator();
    sim.setFault('flow_control', { kind: 'delay', ms: 1500 });
    const exporter = await startExporter([], {
      QSTASH_TOKEN: DEMO_QSTASH_TOKEN,
      QSTASH_URL: sim.url,
      UPSTASH_EMAIL: 'demo@example.com',
      UPSTASH_API_KEY: DEMO_API_KEY,
      UPSTASH_MANAGEMENT_URL: sim.url,
      UPSTASH_REDIS_DATABASES: 'db-demo-cache',
    });
    try {
      expect((await fetch(`${exporter.url}/readyz`)).status).toBe(503);
      const early = await (await fetch(`${exporter.url}/metrics`)).text();
      expect(early).not.toMatch(/^upstash_up\{source="flow_control"/m);
      await waitForStatus(`${exporter.url}/readyz`, 200);
      const body = await (await fetch(`${exporter.url}/metrics`)).text();
      expect(body).toMatch(
        /^upstash_up\{source="flow_control",account="default",database_id="",qstash_id="",index_id=""\} 1$/m,
      );
      expect(body).toMatch(/^upstash_redis_keys\{account="default",database_id="db-demo-cache"\} \d+$/m);
    } finally {
      // Exit 0 means it stopped within its own 5 s grace (which exits 1): the program's clock bounds
      // the stop, so no clock of the test's has to (a hang is the test's timeout).
      expect(await exporter.stop('SIGTERM')).toBe(0);
      await sim.stop();
    }
  });

  it('stops with exit 0 on SIGINT even while a poll hangs', async () => {
    const sim = await startSimulator();
    sim.setFault('all', { kind: 'hang' });
    const exporter = await startExporter([], { QSTASH_TOKEN: DEMO_QSTASH_TOKEN, QSTASH_URL: sim.url });
    // A poll hangs once its request has reached the simulator (however long that took), not after a
    // fixed pause.
    await eventually('a poll hanging', () => (sim.requests('flow_control') >= 1 ? true : undefined));
    expect(await exporter.stop('SIGINT')).toBe(0);
    await sim.stop();
  });
});

describe('config.example.yaml', () => {
  it('is a valid configuration', async () => {
    const example = new URL('../../config.example.yaml', import.meta.url).pathname;
    const result = await runToExit(['--config', example, '--check-config'], {
      QSTASH_TOKEN: 'qstash-example-token',
      UPSTASH_API_KEY: 'api-example-key',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('qstash eu: https://qstash.upstash.io, token <redacted>');
    expect(result.stdout).not.toContain('qstash-example-token');
  });
});

describe('signals during start-up', () => {
  /** Resolves once the process catches `signals` (Linux: the SigCgt mask of /proc/<pid>/status). */
  async function caught(pid: number, signals: readonly number[]): Promise<void> {
    const deadline = Date.now() + START_LIMIT_MS;
    while (Date.now() < deadline) {
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      const mask = BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? '0'}`);
      if (signals.every((signal) => (mask >> BigInt(signal - 1)) & 1n)) return;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error('the exporter never caught the signals');
  }

  it('a SIGHUP burst while starting neither kills the process nor re-polls; SIGTERM then exits 0', async () => {
    const sim = await startSimulator();
    const from = Date.now();
    const child = spawn(process.execPath, [MAIN, '--web.listen-address', '127.0.0.1:0'], {
      env: { PATH: process.env.PATH, QSTASH_TOKEN: DEMO_QSTASH_TOKEN, QSTASH_URL: sim.url },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await caught(child.pid!, [1]);
      // As early as the handlers exist, on through start-up, and twenty more once it listens.
      let after = 0;
      const deadline = Date.now() + START_LIMIT_MS;
      while (after < 20 && child.exitCode === null && Date.now() < deadline) {
        child.kill('SIGHUP');
        if (stdout.includes('"msg":"listening"')) after++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      while (!stdout.includes('"msg":"configuration reloaded"') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(child.exitCode).toBeNull();
      expect(stdout).toContain('"msg":"configuration reloaded"');
      // Reloads keep every unchanged source's schedule: one start-up poll, no re-poll per signal,
      // and a poll per tick of the 30 s schedule (at :00 and :30) if a slow run spanned one.
      const ticks = Math.floor(Date.now() / 30_000) - Math.floor(from / 30_000);
      expect(sim.requests('flow_control')).toBeGreaterThanOrEqual(1);
      expect(sim.requests('flow_control')).toBeLessThanOrEqual(1 + ticks);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await sim.stop();
    }
  });

  it('SIGTERM at the first moment it can be caught exits 0', async () => {
    const child = spawn(process.execPath, [MAIN, '--web.listen-address', '127.0.0.1:0', '--demo'], {
      env: { PATH: process.env.PATH },
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // Node catches SIGTERM itself from its first moment (to restore the terminal, then die by it);
      // ours is in place once SIGHUP, whose listener is installed right after it, is caught.
      await caught(child.pid!, [1]);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('log format', () => {
  it('--log.format text writes one readable line per event, secrets redacted as in json', async () => {
    const sim = await startSimulator();
    sim.setFault('flow_control', { kind: 'status', status: 503 });
    const exporter = await startExporterText(sim.url);
    try {
      await waitForStatus(`${exporter.url}/readyz`, 200);
      const out = exporter.stdout();
      const lines = out.trim().split('\n');
      expect(lines.some((line) => /^\[\d{4}-\d\d-\d\d [\d:.]+\] INFO: listening/.test(line))).toBe(true);
      expect(
        lines.some(
          (line) =>
            /WARN: poll failed .*reason: "server_error"/.test(line) ||
            /WARN: poll failed.*server_error/.test(line),
        ),
      ).toBe(true);
      for (const line of lines) expect(line.startsWith('{')).toBe(false);
      expect(out).not.toContain('text-format-secret-token');
    } finally {
      await exporter.stop();
      await sim.stop();
    }
  });

  /** The exporter with text logs; `startExporter` reads the JSON `listening` line, so this waits itself. */
  async function startExporterText(url: string) {
    const child = spawn(
      process.execPath,
      [MAIN, '--web.listen-address', '127.0.0.1:0', '--log.format', 'text', '--log.level', 'debug'],
      { env: { PATH: process.env.PATH, QSTASH_TOKEN: 'text-format-secret-token', QSTASH_URL: url } },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + START_LIMIT_MS;
    let port: string | undefined;
    while (port === undefined && Date.now() < deadline) {
      port = /INFO: listening .*"address":"127\.0\.0\.1:(\d+)"/.exec(stdout)?.[1];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (port === undefined) {
      child.kill('SIGKILL');
      throw new Error(`no listening line: ${stdout}`);
    }
    return {
      url: `http://127.0.0.1:${port}`,
      stdout: () => stdout,
      stop: async () => {
        child.kill('SIGTERM');
        return exited;
      },
    };
  }
});

describe("the demo's first screen", () => {
  /** Waits for `done(stdout)`, for at most 20 s: the first polls end well within it. */
  async function until(exporter: { stdout(): string }, done: (stdout: string) => boolean): Promise<string> {
    const deadline = Date.now() + 20_000;
    while (!done(exporter.stdout()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return exporter.stdout();
  }

  it('with JSON logs, every line is JSON: the injected faults said before the warning they cause, and the landing page URL', async () => {
    const exporter = await startExporter(['--demo', '--log.format', 'json']);
    try {
      const stdout = await until(exporter, (out) => out.includes('"msg":"field rejected'));
      const lines = stdout.trim().split('\n');
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const injected = records.findIndex((r) => r.injected === 'changed_field');
      const rejected = records.findIndex((r) => String(r.msg).startsWith('field rejected'));
      expect(injected).toBeGreaterThanOrEqual(0);
      expect(rejected).toBeGreaterThan(injected);
      expect(records[injected]?.msg).toMatch(
        /injected on purpose: .*db-demo-suspended.*"field rejected" warning/,
      );
      expect(records[rejected]).toMatchObject({ database_id: 'db-demo-suspended', field: 'dailyproduce' });
      const urls = records.find((r) => r.landing_page !== undefined);
      expect(urls).toMatchObject({ landing_page: `${exporter.url}/`, metrics: `${exporter.url}/metrics` });
      const landing = await fetch(String(urls?.landing_page));
      expect(landing.status).toBe(200);
      expect(await landing.text()).toContain('<h1>Upstash exporter</h1>');
    } finally {
      await exporter.stop();
    }
  });

  it('with text logs (npm run demo), the same lines read as sentences, the landing page URL among them', async () => {
    const child = spawn(
      process.execPath,
      [MAIN, '--web.listen-address', '127.0.0.1:0', '--demo', '--log.format', 'text'],
      {
        env: { PATH: process.env.PATH },
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await until({ stdout: () => stdout }, (out) => out.includes('WARN: field rejected'));
      expect(
        stdout.indexOf('INFO: demo: injected on purpose: the suspended database db-demo-suspended'),
      ).toBeGreaterThanOrEqual(0);
      expect(stdout.indexOf('injected on purpose')).toBeLessThan(stdout.indexOf('WARN: field rejected'));
      expect(stdout).toMatch(
        /INFO: demo: open the landing page .*"landing_page":"http:\/\/127\.0\.0\.1:\d+\/"/,
      );
      for (const line of stdout.trim().split('\n'))
        expect(line).toMatch(/^\[\d{4}-\d\d-\d\d [\d:.]+\] (INFO|WARN):/);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
