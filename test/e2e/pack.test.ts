import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startExporter, waitForStatus } from '../helpers/exporter-process.js';

// The npm package as a user gets it (docs/operations.md, Installing): `npm pack`'s tarball, installed with
// `npm install -g` into a prefix of its own, runs `upstash-exporter --version` and `--demo`.
// The tarball is packed from the dist/ that `npm test` has just built (--ignore-scripts: the prepack
// script's fresh build would pull dist/ away from the other e2e tests running beside this one).
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const REVISION = (
  JSON.parse(readFileSync(join(ROOT, 'dist/build-info.json'), 'utf8')) as { revision: string }
).revision;
const work = mkdtempSync(join(tmpdir(), 'upstash-exporter-pack-'));
const prefix = join(work, 'prefix');
const bin = join(prefix, 'bin', 'upstash-exporter');
// npm as a user runs it: none of the npm_* settings of an `npm test` around this run; node on PATH
// first, for the command's `#!/usr/bin/env node`.
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key))),
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
};

afterAll(() => rmSync(work, { recursive: true, force: true }));

// npm unpacks and links some 250 files: 4 s on a quiet machine, and this whole file took a minute beside
// two CPU-bound processes; the limit is for a hung npm only.
const NPM_LIMIT_MS = 300_000;

describe('npm pack, then npm install -g of the tarball', () => {
  let tarball = '';

  it(
    'packs the compiled program and what npm always adds, nothing else',
    { timeout: NPM_LIMIT_MS },
    async () => {
      const { stdout } = await run(
        'npm',
        ['pack', '--ignore-scripts', '--json', '--pack-destination', work],
        {
          cwd: ROOT,
          env,
        },
      );
      const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
      expect(packed.filename).toBe(`upstash-exporter-${pkg.version}.tgz`);
      tarball = join(work, packed.filename);
      const files = packed.files.map((f) => f.path);
      expect(files).toContain('dist/main.js');
      expect(files).toContain('dist/worker/worker.js');
      expect(files).toContain('dist/build-info.json');
      const others = files.filter((f) => !/^dist\/.*\.js$/.test(f) && f !== 'dist/build-info.json');
      expect(others.sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
    },
  );

  it(
    'installs into a fresh prefix with the runtime dependencies only',
    { timeout: NPM_LIMIT_MS },
    async () => {
      expect(tarball).not.toBe('');
      await run(
        'npm',
        ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball],
        {
          env,
        },
      );
      expect(existsSync(bin)).toBe(true);
      const installed = join(prefix, 'lib', 'node_modules', 'upstash-exporter', 'node_modules');
      for (const name of Object.keys(pkg.dependencies))
        expect(existsSync(join(installed, name)), name).toBe(true);
      for (const name of Object.keys(pkg.devDependencies))
        expect(existsSync(join(installed, name)), name).toBe(false);
    },
  );

  it('upstash-exporter --version says the version and the revision it was built from', async () => {
    const { stdout } = await run(bin, ['--version'], { env });
    expect(stdout.split('\n')[0]).toBe(`upstash-exporter, version ${pkg.version} (revision: ${REVISION})`);
  });

  it('upstash-exporter --demo serves /metrics, then stops on SIGTERM', async () => {
    const exporter = await startExporter(['--demo'], {}, [bin]);
    try {
      await waitForStatus(`${exporter.url}/readyz`, 200);
      const metrics = await fetch(`${exporter.url}/metrics`).then(async (r) => r.text());
      expect(metrics).toMatch(/^upstash_up\{source="flow_control",[^}]*\} 1$/m);
      expect(metrics).toContain(
        `upstash_exporter_build_info{version="${pkg.version}",revision="${REVISION}"`,
      );
    } finally {
      expect(await exporter.stop()).toBe(0);
    }
  });
});
