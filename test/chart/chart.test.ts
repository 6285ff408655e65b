import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CHART,
  NAMESPACE,
  RELEASE,
  ROOT,
  flag,
  helm,
  notes,
  ofKind,
  one,
  podSpec,
  render,
  validate,
  valuesFile,
  workloads,
  type K8sObject,
} from './helm.js';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}

const ciDir = join(CHART, 'ci');
const ciFiles = readdirSync(ciDir)
  .filter((name) => name.endsWith('-values.yaml'))
  .sort();
const variants: [string, string[]][] = [
  ['defaults', []],
  ...ciFiles.map((name): [string, string[]] => [`ci/${name}`, [join(ciDir, name)]]),
];
const ci = (name: string) => [join(ciDir, name)];

const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as {
  version: string;
  appVersion: string;
};
const packageVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

const repoAlerts = parse(readFileSync(join(ROOT, 'prometheus/alerts.yml'), 'utf8')) as RuleFile;
// What the chart renders without prometheusRule.runbookBaseUrl: the rules as scripts/alert-rules.mjs
// writes them without a base, runbook links left out (a relative one opens from no notification).
const unbasedAlerts = parse(
  execFileSync(process.execPath, [join(ROOT, 'scripts/alert-rules.mjs')], { encoding: 'utf8' }),
) as RuleFile;
const alertNames = (file: RuleFile) =>
  file.groups.flatMap((group) =>
    group.rules.flatMap((rule) => (rule.alert === undefined ? [] : [rule.alert])),
  );

const rendered = new Map<string, K8sObject[]>();
beforeAll(async () => {
  for (const [name, files] of variants) rendered.set(name, await render({ files }));
});
const objectsOf = (variant: string): K8sObject[] => {
  const objects = rendered.get(variant);
  if (objects === undefined) throw new Error(`not rendered: ${variant}`);
  return objects;
};

it("has the exporter's version as appVersion (the default image tag)", () => {
  expect(chart.appVersion).toBe(packageVersion);
});

it('has the five ci variants the README names', () => {
  expect(ciFiles).toEqual([
    'default-values.yaml',
    'existing-secret-values.yaml',
    'hardened-values.yaml',
    'monitoring-values.yaml',
    'sharded-values.yaml',
  ]);
});

it('kubernetes-models rejects a broken object (the validation below is not vacuous)', async () => {
  const broken: K8sObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'broken' },
    spec: {
      selector: {},
      template: { spec: { containers: [{ name: 'x', ports: [{ containerPort: 'http' }] }] } },
    },
  };
  await expect(validate(broken)).rejects.toThrow(/containerPort must be integer/);
});

describe.each(variants)('%s', (variant, files) => {
  it('passes helm lint --strict', async () => {
    const out = await helm(
      'lint',
      '--strict',
      CHART,
      '--namespace',
      NAMESPACE,
      ...files.flatMap((f) => ['-f', f]),
    );
    expect(out).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('renders objects that all validate against their Kubernetes or Prometheus Operator schema', async () => {
    const objects = objectsOf(variant);
    expect(objects.length).toBeGreaterThan(2);
    for (const obj of objects) await validate(obj);
  });

  it('labels every object as prometheus-community charts do', () => {
    for (const obj of objectsOf(variant)) {
      expect(obj.metadata.labels, `${obj.kind} ${obj.metadata.name}`).toMatchObject({
        'app.kubernetes.io/name': 'upstash-exporter',
        'app.kubernetes.io/instance': RELEASE,
        'app.kubernetes.io/managed-by': 'Helm',
        'helm.sh/chart': `upstash-exporter-${chart.version}`,
        'app.kubernetes.io/version': chart.appVersion,
      });
    }
  });

  it('probes readiness on /readyz and liveness on /healthz, basic auth or not (the probes are open)', () => {
    const container = podSpec(workloads(objectsOf(variant))[0]!).containers[0]!;
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
  });

  it('runs the hardened exporter first: non-root, read-only root, no capabilities, seccomp, probes, resources', () => {
    const [workload, ...others] = workloads(objectsOf(variant));
    expect(others).toEqual([]);
    const pod = podSpec(workload!);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(pod.automountServiceAccountToken).toBe(false);
    // One container, or the exporter followed by extraContainers (ci/hardened-values.yaml).
    expect(pod.containers.map((c) => c.name)).toEqual([
      'exporter',
      ...(variant === 'ci/hardened-values.yaml' ? ['config-reloader'] : []),
    ]);
    const container = pod.containers[0]!;
    expect(container.image).toBe(`upstash-exporter:${chart.appVersion}`);
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.securityContext?.capabilities?.add).toBeUndefined();
    expect(container.ports).toEqual([{ name: 'http', containerPort: 9645, protocol: 'TCP' }]);
    expect(container.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe?.httpGet?.port).toBe('http');
    expect(container.resources?.requests?.cpu).toBeTruthy();
    expect(container.resources?.requests?.memory).toBeTruthy();
    expect(container.resources?.limits?.memory).toBeTruthy();
    expect(flag(container.args ?? [], '--web.listen-address')).toBe(':9645');
  });

  it('puts no credential in the environment: no env value from a Secret, no envFrom', () => {
    for (const workload of workloads(objectsOf(variant))) {
      for (const container of podSpec(workload).containers) {
        expect(container.envFrom).toBeUndefined();
        for (const env of container.env ?? []) expect(env.valueFrom?.secretKeyRef).toBeUndefined();
      }
    }
  });

  it('mounts the config file it passes with --config, and refers to credentials by *_file only', () => {
    const objects = objectsOf(variant);
    const workload = workloads(objects)[0]!;
    const container = podSpec(workload).containers[0]!;
    expect(flag(container.args ?? [], '--config')).toBe('/etc/upstash-exporter/config/config.yaml');
    const mount = container.volumeMounts?.find((m) => m.mountPath === '/etc/upstash-exporter/config');
    const volume = podSpec(workload).volumes?.find((v) => v.name === mount?.name);
    const configMap = ofKind(objects, 'ConfigMap').find((cm) => cm.metadata.name === volume?.configMap?.name);
    const config = parse(configMap?.data?.['config.yaml'] ?? '') as {
      qstash?: Record<string, unknown>[];
      management?: Record<string, unknown>[];
    };
    const entries = [...(config.qstash ?? []), ...(config.management ?? [])];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(entry).not.toHaveProperty('token');
      expect(entry).not.toHaveProperty('api_key');
      const file = (entry.token_file ?? entry.api_key_file) as string;
      expect(file.startsWith('/etc/upstash-exporter/secrets/')).toBe(true);
    }
    expect(container.volumeMounts).toContainEqual({
      name: 'credentials',
      mountPath: '/etc/upstash-exporter/secrets',
      readOnly: true,
    });
    const credentials = podSpec(workload).volumes?.find((v) => v.name === 'credentials');
    // 0440: the exporter's user (through fsGroup) reads, nobody writes, others see nothing.
    expect(credentials?.secret?.defaultMode).toBe(0o440);
  });
});

describe('defaults: one shard', () => {
  it('is a Deployment of one replica without shard flags, behind a ClusterIP Service', () => {
    const objects = objectsOf('defaults');
    expect(ofKind(objects, 'StatefulSet')).toEqual([]);
    const deployment = one(objects, 'Deployment');
    expect(deployment.spec?.replicas).toBe(1);
    const args = podSpec(deployment).containers[0]!.args ?? [];
    expect(flag(args, '--shard')).toBeUndefined();
    expect(flag(args, '--total-shards')).toBeUndefined();
    expect(flag(args, '--log.format')).toBe('json');
    const service = one(objects, 'Service');
    expect(service.spec).toMatchObject({
      type: 'ClusterIP',
      ports: [{ name: 'http', port: 9645, targetPort: 'http' }],
    });
    expect(service.spec?.clusterIP).toBeUndefined();
    const container = podSpec(deployment).containers[0]!;
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', scheme: 'HTTP' });
  });

  it('renders no Prometheus Operator object, dashboard or PodDisruptionBudget unless asked', () => {
    const kinds = objectsOf('defaults').map((obj) => obj.kind);
    expect(kinds.sort()).toEqual(['ConfigMap', 'Deployment', 'Secret', 'Service', 'ServiceAccount']);
  });
});

describe('image', () => {
  it('takes image.tag and image.digest over the appVersion', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const objects = await render({
      set: ['image.repository=registry.example/upstash-exporter', 'image.tag=v9', `image.digest=${digest}`],
    });
    expect(podSpec(one(objects, 'Deployment')).containers[0]!.image).toBe(
      `registry.example/upstash-exporter:v9@${digest}`,
    );
  });
});

describe('ci/sharded-values.yaml: three shards', () => {
  it('is a StatefulSet of 3 pods passing --shard auto and --total-shards 3', () => {
    const objects = objectsOf('ci/sharded-values.yaml');
    expect(ofKind(objects, 'Deployment')).toEqual([]);
    const set = one(objects, 'StatefulSet');
    expect(set.metadata.name).toBe(RELEASE);
    expect(set.spec).toMatchObject({ replicas: 3, podManagementPolicy: 'Parallel' });
    const args = podSpec(set).containers[0]!.args ?? [];
    expect(flag(args, '--shard')).toBe('auto');
    expect(flag(args, '--total-shards')).toBe('3');
  });

  it('names its ClusterIP Service (not headless: see upgrade.test.ts) as the StatefulSet serviceName', () => {
    const objects = objectsOf('ci/sharded-values.yaml');
    const service = one(objects, 'Service');
    expect(service.spec?.type).toBe('ClusterIP');
    expect(service.spec?.clusterIP).toBeUndefined();
    expect(one(objects, 'StatefulSet').spec?.serviceName).toBe(service.metadata.name);
  });

  it('keeps at most one shard away during voluntary disruptions', () => {
    const pdb = one(objectsOf('ci/sharded-values.yaml'), 'PodDisruptionBudget');
    expect(pdb.spec).toMatchObject({ maxUnavailable: 1 });
  });

  it('follows sharding.shards for --total-shards and replicas', async () => {
    const set = one(
      await render({ files: ci('sharded-values.yaml'), set: ['sharding.shards=5'] }),
      'StatefulSet',
    );
    expect(set.spec?.replicas).toBe(5);
    expect(flag(podSpec(set).containers[0]!.args ?? [], '--total-shards')).toBe('5');
  });

  it('refuses a load-balanced Service type with shards', async () => {
    await expect(
      render({ files: ci('sharded-values.yaml'), set: ['service.type=NodePort'] }),
    ).rejects.toThrow(/service.type: shards need a ClusterIP Service/);
  });
});

describe('ci/monitoring-values.yaml: Prometheus Operator objects and the dashboard', () => {
  it('has a ServiceMonitor that selects the Service and names its port, over https with basic auth', () => {
    const objects = objectsOf('ci/monitoring-values.yaml');
    const monitor = one(objects, 'ServiceMonitor');
    const service = one(objects, 'Service');
    const spec = monitor.spec as {
      selector: { matchLabels: Record<string, string> };
      namespaceSelector: { matchNames: string[] };
      endpoints: {
        port: string;
        path: string;
        scheme: string;
        basicAuth?: unknown;
        relabelings: unknown[];
      }[];
    };
    expect(service.metadata.labels).toMatchObject(spec.selector.matchLabels);
    expect(spec.namespaceSelector.matchNames).toEqual([NAMESPACE]);
    expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
    expect(spec.endpoints).toHaveLength(1);
    const endpoint = spec.endpoints[0]!;
    expect(endpoint).toMatchObject({ port: 'http', path: '/metrics', scheme: 'https' });
    expect(endpoint.basicAuth).toBeDefined();
    expect(endpoint.relabelings).toContainEqual({
      action: 'replace',
      targetLabel: 'job',
      replacement: 'upstash',
    });
  });

  it('has a PrometheusRule holding every alert and recording rule of prometheus/alerts.yml, as scripts/alert-rules.mjs writes them without a runbook base', () => {
    const rule = one(objectsOf('ci/monitoring-values.yaml'), 'PrometheusRule');
    const groups = (rule.spec as unknown as RuleFile).groups;
    expect(alertNames({ groups }).sort()).toEqual(alertNames(repoAlerts).sort());
    expect(alertNames(repoAlerts).length).toBeGreaterThan(0);
    expect(groups).toEqual(unbasedAlerts.groups);
    expect(JSON.stringify(groups)).not.toContain('runbook_url');
  });

  it('sets the rules job selector to serviceMonitor.jobName', async () => {
    const objects = await render({
      files: ci('monitoring-values.yaml'),
      set: ['serviceMonitor.jobName=upstash-prod'],
    });
    const groups = (one(objects, 'PrometheusRule').spec as unknown as RuleFile).groups;
    const exprs = groups.flatMap((group) => group.rules.map((r) => r.expr));
    expect(exprs.some((expr) => expr.includes('job="upstash-prod"'))).toBe(true);
    expect(exprs.some((expr) => expr.includes('job="upstash"'))).toBe(false);
    expect(alertNames({ groups }).sort()).toEqual(alertNames(repoAlerts).sort());
  });

  it('has the Grafana dashboard, byte for byte, in a ConfigMap labelled for the sidecar', () => {
    const dashboards = ofKind(objectsOf('ci/monitoring-values.yaml'), 'ConfigMap').filter(
      (cm) => cm.metadata.labels?.grafana_dashboard !== undefined,
    );
    expect(dashboards).toHaveLength(1);
    const dashboard = dashboards[0]!;
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    expect(dashboard.metadata.annotations?.grafana_folder).toBe('Upstash');
    for (const name of ['upstash.json', 'upstash-platform.json']) {
      const file = readFileSync(join(ROOT, `grafana/dashboards/${name}`), 'utf8');
      expect(dashboard.data?.[name]?.trimEnd(), name).toBe(file.trimEnd());
    }
  });

  it('serves TLS: --web.config.file from a Secret, probes over HTTPS, readiness on /readyz (open under basic auth)', () => {
    const objects = objectsOf('ci/monitoring-values.yaml');
    const workload = one(objects, 'Deployment');
    const container = podSpec(workload).containers[0]!;
    expect(flag(container.args ?? [], '--web.config.file')).toBe('/etc/upstash-exporter/web/web-config.yml');
    expect(container.livenessProbe?.httpGet?.scheme).toBe('HTTPS');
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', scheme: 'HTTPS' });
    const secrets = ofKind(objects, 'Secret').map((s) => s.metadata.name);
    expect(secrets.sort()).toEqual([`${RELEASE}-credentials`, `${RELEASE}-web-config`]);
    const volumes = podSpec(workload).volumes ?? [];
    expect(volumes.map((v) => v.secret?.secretName)).toContain('upstash-exporter-tls');
  });
});

describe('ci/existing-secret-values.yaml: credentials from a Secret made elsewhere', () => {
  it('mounts the named Secrets and creates none', () => {
    const objects = objectsOf('ci/existing-secret-values.yaml');
    expect(ofKind(objects, 'Secret')).toEqual([]);
    const volumes = podSpec(one(objects, 'Deployment')).volumes ?? [];
    const secretOf = (name: string) => volumes.find((v) => v.name === name)?.secret?.secretName;
    expect(secretOf('credentials')).toBe('upstash-credentials');
    expect(secretOf('web-config')).toBe('upstash-exporter-web-config');
  });
});

describe('credentials', () => {
  it('appear only in the Secret: not in env, args, the ConfigMap or any other object', async () => {
    const token = 'sentinel-qstash-token-4f9c2a';
    const apiKey = 'sentinel-api-key-7b1e03';
    const objects = await render({
      files: ci('sharded-values.yaml'),
      set: [`secret.data.qstash-token=${token}`, `secret.data.upstash-api-key=${apiKey}`],
    });
    const secret = one(objects, 'Secret');
    expect(secret.data).toEqual({
      'qstash-token': Buffer.from(token).toString('base64'),
      'upstash-api-key': Buffer.from(apiKey).toString('base64'),
    });
    for (const obj of objects.filter((o) => o !== secret)) {
      const text = JSON.stringify(obj);
      for (const value of [token, apiKey]) {
        expect(text).not.toContain(value);
        expect(text).not.toContain(Buffer.from(value).toString('base64'));
      }
    }
  });

  it('a plain token or api_key in config fails the rendering and says to use the *_file key', async () => {
    const token = await valuesFile({ config: { qstash: [{ name: 'eu', token: 'plain' }] } });
    await expect(render({ files: [token] })).rejects.toThrow(/config.qstash\[0\].token: .*token_file/);
    const apiKey = await valuesFile({
      config: { management: [{ name: 'm', email: 'a@b.c', api_key: 'plain' }] },
    });
    await expect(render({ files: [apiKey] })).rejects.toThrow(
      /config.management\[0\].api_key: .*api_key_file/,
    );
  });
});

describe('NOTES.txt', () => {
  it('warns when no credential is given', async () => {
    expect(await notes()).toContain('WARNING: secret.data is empty');
    expect(await notes('-f', ci('default-values.yaml')[0]!)).not.toContain('WARNING');
  });

  it('points at one shard, not the Service (which mixes the shards), when sharded', async () => {
    expect(await notes('-f', ci('sharded-values.yaml')[0]!)).toContain(`port-forward pod/${RELEASE}-0 9645`);
  });
});

describe('values.schema.json', () => {
  it.each([
    ['sharding.shards=x', '/sharding/shards'],
    ['sharding.shards=0', '/sharding/shards'],
    ['replicaCount=three', "additional properties 'replicaCount' not allowed"],
    ['service.port=http', '/service/port'],
    ['log.format=yaml', '/log/format'],
    ['serviceMonitor.enabled=yes', '/serviceMonitor/enabled'],
  ])('rejects %s', async (pair, message) => {
    const error = await render({ set: [pair] }).then(
      () => new Error('rendered'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toContain("values don't meet the specifications of the schema");
    expect(error.message).toContain(message);
  });
});

describe('the packaged chart', () => {
  it('carries the alerts and the dashboard (helm follows the symlinks into the archive)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chart-package-'));
    await helm('package', CHART, '--destination', dir);
    const archives = (await readdir(dir)).filter((name) => name.endsWith('.tgz'));
    expect(archives).toEqual([`upstash-exporter-${chart.version}.tgz`]);
    const objects = await render({ chart: join(dir, archives[0]!), files: ci('monitoring-values.yaml') });
    const groups = (one(objects, 'PrometheusRule').spec as unknown as RuleFile).groups;
    expect(groups).toEqual(unbasedAlerts.groups);
    const dashboard = ofKind(objects, 'ConfigMap').find(
      (cm) => cm.metadata.labels?.grafana_dashboard === '1',
    );
    expect(dashboard?.data?.['upstash.json']).toContain('"templating"');
  });
});
