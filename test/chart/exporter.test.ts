import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CHART,
  RELEASE,
  ROOT,
  flag,
  ofKind,
  podSpec,
  render,
  validate,
  valuesFile,
  workloads,
  type K8sObject,
} from './helm.js';

// The real exporter (dist/, built by scripts/chart-test.sh) is given what a pod of each variant gets:
// the rendered args, the ConfigMap's config file, the Secret's files, the web config and a TLS pair,
// laid out under a temporary folder instead of /etc/upstash-exporter. `--check-config` must accept it.
// A StatefulSet pod runs under its own host name (a UTS namespace), so `--shard=auto` is the real thing.

const run = promisify(execFile);
const MAIN = join(ROOT, 'dist/main.js');
const MOUNT = '/etc/upstash-exporter/';

interface Layout {
  root: string;
  args: string[];
  secrets: string[];
}

/** Writes a pod's files under a temporary root and returns its args pointing there. */
async function layOut(objects: K8sObject[]): Promise<Layout> {
  const root = await mkdtemp(join(tmpdir(), 'chart-pod-'));
  const place = (path: string) => path.replaceAll(MOUNT, `${root}/`);
  const write = async (path: string, content: string | Buffer) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };
  const workload = workloads(objects)[0]!;
  const pod = podSpec(workload);
  const container = pod.containers[0]!;
  const mountOf = (volume: string) => container.volumeMounts?.find((m) => m.name === volume)?.mountPath;
  const secretObject = (name: string | undefined) =>
    ofKind(objects, 'Secret').find((s) => s.metadata.name === name);
  const volumeSecret = (volume: string) => pod.volumes?.find((v) => v.name === volume)?.secret?.secretName;

  const configMap = ofKind(objects, 'ConfigMap').find(
    (cm) => cm.metadata.name === pod.volumes?.find((v) => v.name === 'config')?.configMap?.name,
  )!;
  const configText = configMap.data!['config.yaml']!;
  await write(place(`${mountOf('config')!}/config.yaml`), place(configText));

  // The credentials: the chart's Secret, or stand-ins for the files an existing Secret must hold.
  const secrets: string[] = [];
  const credentials = secretObject(volumeSecret('credentials'));
  if (credentials !== undefined) {
    for (const [key, value] of Object.entries(credentials.data ?? {})) {
      const plain = Buffer.from(value, 'base64').toString();
      secrets.push(plain);
      await write(place(`${mountOf('credentials')!}/${key}`), plain);
    }
  } else {
    const config = parse(configText) as {
      qstash?: Record<string, string>[];
      management?: Record<string, string>[];
    };
    for (const entry of [...(config.qstash ?? []), ...(config.management ?? [])]) {
      const file = entry.token_file ?? entry.api_key_file;
      if (file !== undefined) await write(place(file), 'stand-in-for-an-existing-secret');
    }
  }

  if (mountOf('web-config') !== undefined) {
    const web = secretObject(volumeSecret('web-config'));
    const content =
      web === undefined
        ? 'basic_auth_users: {}\n' // an existing Secret's content is not ours to know
        : Buffer.from(web.data!['web-config.yml']!, 'base64').toString();
    await write(place(`${mountOf('web-config')!}/web-config.yml`), place(content));
  }
  const tls = mountOf('tls');
  if (tls !== undefined) {
    await mkdir(place(tls), { recursive: true });
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=upstash-exporter',
      '-keyout',
      place(`${tls}/tls.key`),
      '-out',
      place(`${tls}/tls.crt`),
    ]);
  }
  return { root, args: (container.args ?? []).map(place), secrets };
}

/** Runs `--check-config` as the pod would; a StatefulSet pod under its own host name. */
async function checkConfig(args: string[], hostname?: string): Promise<{ code: number; output: string }> {
  const command =
    hostname === undefined
      ? ['node', MAIN, ...args, '--check-config']
      : [
          'unshare',
          '-Ur',
          '--uts',
          'sh',
          '-c',
          'hostname "$0" && exec "$@"',
          hostname,
          'node',
          MAIN,
          ...args,
          '--check-config',
        ];
  try {
    const { stdout, stderr } = await run(command[0]!, command.slice(1), { timeout: 30_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const variants = ['default', 'sharded', 'monitoring', 'existing-secret', 'hardened'];

describe.each(variants)('the exporter accepts what ci/%s-values.yaml gives a pod', (variant) => {
  it('passes --check-config with the rendered args, config, credentials and web config', async () => {
    expect(existsSync(MAIN), 'dist/main.js: run `npm run build`').toBe(true);
    const objects = await render({ files: [join(CHART, 'ci', `${variant}-values.yaml`)] });
    const { args, secrets } = await layOut(objects);
    const workload = workloads(objects)[0]!;
    const sharded = workload.kind === 'StatefulSet';
    // The last pod of the StatefulSet: shard 2 of 3 (ci/sharded), shard 1 of 2 (ci/hardened).
    const last = Number(workload.spec?.replicas) - 1;
    const { code, output } = await checkConfig(args, sharded ? `${RELEASE}-${last}` : undefined);
    expect(output).toContain('configuration OK');
    expect(code).toBe(0);
    for (const secret of secrets) expect(output).not.toContain(secret);
    const total = flag(args, '--total-shards');
    expect(output).toContain(
      sharded ? `sharding: shard ${last} of ${total ?? '?'}` : 'sharding: shard 0 of 1',
    );
    expect(output).toContain('log_format: json');
  });
});

describe("the chart README's my-values.yaml", () => {
  it('renders valid objects and a configuration the exporter accepts', async () => {
    const readme = readFileSync(join(ROOT, 'charts', 'upstash-exporter', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('A minimal `my-values.yaml`'));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block, 'the yaml block after "A minimal `my-values.yaml`"').toBeDefined();
    const objects = await render({ files: [await valuesFile(parse(block!) as Record<string, unknown>)] });
    for (const obj of objects) await validate(obj);
    expect(ofKind(objects, 'ServiceMonitor')).toHaveLength(1);
    const { args } = await layOut(objects);
    const { code, output } = await checkConfig(args);
    expect(output).toContain('configuration OK');
    expect(code).toBe(0);
  });
});
