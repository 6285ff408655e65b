import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runToExit, startExporter, waitForStatus } from '../helpers/exporter-process.js';

// Every place that shows the exporter's version says package.json's, the one source of it, and the
// program says which commit it was built from.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const VERSION = (JSON.parse(read('package.json')) as { version: string }).version;
const REVISION = (JSON.parse(read('dist/build-info.json')) as { revision: string }).revision;

function gitHead(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return undefined;
  }
}

describe('one version everywhere, from package.json', () => {
  it('package.json has a release version, and package-lock.json the same', () => {
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const lock = JSON.parse(read('package-lock.json')) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect(lock.version).toBe(VERSION);
    expect(lock.packages['']?.version).toBe(VERSION);
  });

  it('the build wrote the revision it was built from: HEAD in a git checkout, unknown outside one', () => {
    expect(REVISION).toMatch(/^(unknown|[0-9a-f]{40}(-modified)?)$/);
    const head = gitHead();
    if (head !== undefined) expect(REVISION.replace(/-modified$/, '')).toBe(head);
  });

  it('--version prints version and revision as Prometheus exporters do', async () => {
    const result = await runToExit(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(`upstash-exporter, version ${VERSION} (revision: ${REVISION})`);
    expect(result.stdout).toContain(`  node version:     ${process.version}\n`);
    expect(result.stdout).toContain(`  platform:         ${process.platform}/${process.arch}\n`);
  });

  it('the chart’s appVersion (its default image tag) is the version', () => {
    const chart = parse(read('charts/upstash-exporter/Chart.yaml')) as {
      version: string;
      appVersion: string;
    };
    expect(chart.appVersion).toBe(VERSION);
    // The chart's own version moves with the chart; it is a version of its own, not a copy.
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('the changelog’s latest release is the version, under the Unreleased section', () => {
    const headings = read('CHANGELOG.md')
      .split('\n')
      .filter((line) => line.startsWith('## '));
    expect(headings[0]).toBe('## [Unreleased]');
    expect(headings[1]).toMatch(
      new RegExp(`^## \\[${VERSION.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`),
    );
  });

  it('the image labels its version and revision from build arguments, and refuses a version that is not package.json’s', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toContain('org.opencontainers.image.version="${VERSION}"');
    expect(dockerfile).toContain('org.opencontainers.image.revision="${REVISION}"');
    expect(dockerfile).toContain('org.opencontainers.image.source=');
    expect(dockerfile).toMatch(/BUILD_REVISION="\$REVISION" npm run build/);
    // scripts/image-build-args.sh gives both from package.json and git; image-test.sh reads the labels back.
    expect(read('scripts/image-build-args.sh')).toContain("require('./package.json').version");
  });

  it('/metrics and the landing page of the running program say the same', async () => {
    const exporter = await startExporter(['--demo']);
    try {
      await waitForStatus(`${exporter.url}/readyz`, 200);
      const metrics = await fetch(`${exporter.url}/metrics`).then(async (r) => r.text());
      expect(metrics).toContain(
        `upstash_exporter_build_info{version="${VERSION}",revision="${REVISION}",node_version="${process.version}"} 1`,
      );
      const page = await fetch(`${exporter.url}/`).then(async (r) => r.text());
      expect(page).toContain(`Version ${VERSION} (revision ${REVISION})`);
    } finally {
      await exporter.stop();
    }
  });
});

describe('-h', () => {
  it('is --help', async () => {
    const short = await runToExit(['-h']);
    const long = await runToExit(['--help']);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(long.stdout);
    expect(short.stdout).toContain('-h, --help');
  });
});

describe('scripts/build-info.mjs', () => {
  // A copy of the script in a folder of its own, which is no git work tree.
  function runCopy(env: NodeJS.ProcessEnv): unknown {
    const dir = mkdtempSync(join(tmpdir(), 'upstash-exporter-build-info-'));
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'dist'));
    cpSync(join(ROOT, 'scripts/build-info.mjs'), join(dir, 'scripts/build-info.mjs'));
    execFileSync(process.execPath, [join(dir, 'scripts/build-info.mjs')], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env },
    });
    return JSON.parse(readFileSync(join(dir, 'dist/build-info.json'), 'utf8'));
  }

  it('outside git: unknown', () => {
    expect(runCopy({})).toEqual({ revision: 'unknown' });
  });

  it('BUILD_REVISION (the image build, CI) wins', () => {
    expect(runCopy({ BUILD_REVISION: 'c0ffee' })).toEqual({ revision: 'c0ffee' });
  });
});
