import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CHART,
  ROOT,
  one,
  podSpec,
  refusal,
  renderValues,
  validate,
  withToken,
  workloads,
  type K8sObject,
} from './helm.js';

// The values users of prometheus-community's charts look for, under those charts' names.

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Group {
  name: string;
  rules: Rule[];
}

const container = (objects: K8sObject[]) => podSpec(workloads(objects)[0]!).containers[0]!;
const repoAlerts = parse(readFileSync(join(ROOT, 'prometheus/alerts.yml'), 'utf8')) as { groups: Group[] };
const alertNames = (groups: Group[]) =>
  groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
const firstAlert = alertNames(repoAlerts.groups)[0]!;
const secondAlert = alertNames(repoAlerts.groups)[1]!;

async function ruleGroups(prometheusRule: Record<string, unknown>): Promise<Group[]> {
  const objects = await renderValues({ ...withToken, prometheusRule: { enabled: true, ...prometheusRule } });
  const rule = one(objects, 'PrometheusRule');
  await validate(rule);
  return (rule.spec as { groups: Group[] }).groups;
}
const alert = (groups: Group[], name: string) => groups.flatMap((g) => g.rules).find((r) => r.alert === name);

describe('prometheusRule', () => {
  it('leaves out the alerts named in disabled, and only those', async () => {
    const groups = await ruleGroups({ disabled: { [firstAlert]: true, [secondAlert]: false } });
    expect(alertNames(groups).sort()).toEqual(
      alertNames(repoAlerts.groups)
        .filter((n) => n !== firstAlert)
        .sort(),
    );
  });

  it('changes one alert by customRules: for, severity, labels, annotations and its expression', async () => {
    const original = alert(repoAlerts.groups, firstAlert)!;
    const groups = await ruleGroups({
      customRules: {
        [firstAlert]: {
          for: '42m',
          severity: 'critical',
          expr: 'up{job="upstash"} == 0 and 1 > 0',
          labels: { team: 'ops' },
          annotations: { runbook_url: 'https://runbooks.example/upstash' },
        },
      },
    });
    const changed = alert(groups, firstAlert)!;
    expect(changed).toMatchObject({
      for: '42m',
      expr: 'up{job="upstash"} == 0 and 1 > 0',
      labels: { ...original.labels, severity: 'critical', team: 'ops' },
      annotations: { ...original.annotations, runbook_url: 'https://runbooks.example/upstash' },
    });
    // Without runbookBaseUrl an untouched alert is the file's, less its relative runbook link.
    const { runbook_url: relative, ...unlinked } = alert(repoAlerts.groups, secondAlert)!.annotations!;
    expect(relative).toMatch(/^docs\/troubleshooting\.md#/);
    expect(alert(groups, secondAlert)).toEqual({
      ...alert(repoAlerts.groups, secondAlert),
      annotations: unlinked,
    });
  });

  it('sets the job selector in an overridden expression too', async () => {
    const objects = await renderValues({
      ...withToken,
      serviceMonitor: { jobName: 'upstash-prod' },
      prometheusRule: { enabled: true, customRules: { [firstAlert]: { expr: 'up{job="upstash"} == 0' } } },
    });
    const groups = (one(objects, 'PrometheusRule').spec as { groups: Group[] }).groups;
    expect(alert(groups, firstAlert)?.expr).toBe('up{job="upstash-prod"} == 0');
  });

  it('sets the job selector and the runbook base as scripts/alert-rules.mjs does, a custom runbook_url winning', async () => {
    const base = 'https://github.example/acme/upstash-exporter/blob/main';
    const objects = await renderValues({
      ...withToken,
      serviceMonitor: { jobName: 'upstash-prod' },
      prometheusRule: {
        enabled: true,
        runbookBaseUrl: `${base}/`,
        customRules: { [secondAlert]: { annotations: { runbook_url: 'https://runbooks.example/mine' } } },
      },
    });
    const groups = (one(objects, 'PrometheusRule').spec as { groups: Group[] }).groups;
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(ROOT, 'scripts/alert-rules.mjs'),
      '--job-selector',
      'job="upstash-prod"',
      '--runbook-base-url',
      base,
    ]);
    const script = (parse(stdout) as { groups: Group[] }).groups;
    expect(alert(groups, firstAlert)?.annotations?.runbook_url).toMatch(
      new RegExp(`^${base}/docs/troubleshooting\\.md#`),
    );
    expect(alert(groups, secondAlert)?.annotations?.runbook_url).toBe('https://runbooks.example/mine');
    const mine = alert(groups, secondAlert)!;
    mine.annotations = {
      ...mine.annotations,
      runbook_url: alert(script, secondAlert)!.annotations!.runbook_url!,
    };
    expect(groups).toEqual(script);
  });

  it('adds additionalRuleLabels and additionalRuleAnnotations to every alert, the rule’s own winning', async () => {
    const groups = await ruleGroups({
      additionalRuleLabels: { team: 'ops', severity: 'ignored' },
      additionalRuleAnnotations: { dashboard: 'https://grafana.example/d/upstash' },
    });
    for (const rule of groups.flatMap((g) => g.rules)) {
      if (rule.alert === undefined) {
        expect(rule.labels).toBeUndefined();
        continue;
      }
      const original = alert(repoAlerts.groups, rule.alert)!;
      expect(rule.labels).toEqual({ team: 'ops', ...original.labels });
      expect(rule.annotations?.dashboard).toBe('https://grafana.example/d/upstash');
    }
  });

  it('appends extraRules in a group of their own', async () => {
    const extra = { alert: 'MyUpstashAlert', expr: 'vector(1)', labels: { severity: 'info' } };
    const groups = await ruleGroups({ extraRules: [extra] });
    expect(groups.at(-1)).toEqual({ name: 'upstash.extra', rules: [extra] });
  });

  it('refuses a name that is no alert (a typo, or a recording rule) and lists the alerts', async () => {
    for (const values of [
      { disabled: { UpstashTypo: true } },
      { customRules: { UpstashTypo: { for: '1m' } } },
    ]) {
      const message = await refusal(renderValues({ prometheusRule: { enabled: true, ...values } }));
      expect(message).toContain('prometheusRule: no alert is named UpstashTypo');
      expect(message).toContain(firstAlert);
    }
    const recording = repoAlerts.groups.flatMap((g) => g.rules).find((r) => r.record !== undefined)!.record!;
    expect(
      await refusal(renderValues({ prometheusRule: { enabled: true, disabled: { [recording]: true } } })),
    ).toContain(`no alert is named ${recording}`);
  });
});

describe('serviceMonitor and podMonitor', () => {
  it('passes targetLabels, podTargetLabels, sampleLimit and labelLimit', async () => {
    const monitor = one(
      await renderValues({
        ...withToken,
        serviceMonitor: {
          enabled: true,
          targetLabels: ['team'],
          podTargetLabels: ['app.kubernetes.io/instance'],
          sampleLimit: 50000,
          labelLimit: 30,
        },
      }),
      'ServiceMonitor',
    );
    await validate(monitor);
    expect(monitor.spec).toMatchObject({
      targetLabels: ['team'],
      podTargetLabels: ['app.kubernetes.io/instance'],
      sampleLimit: 50000,
      labelLimit: 30,
    });
  });

  it('a PodMonitor scrapes the pods’ port with the same job, scheme and limits', async () => {
    const objects = await renderValues({
      ...withToken,
      podMonitor: { enabled: true, additionalLabels: { release: 'kube-prometheus-stack' } },
      serviceMonitor: { jobName: 'upstash-pods', sampleLimit: 1000 },
    });
    const monitor = one(objects, 'PodMonitor');
    await validate(monitor);
    expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
    const spec = monitor.spec as { sampleLimit: number; podMetricsEndpoints: Record<string, unknown>[] };
    expect(spec.sampleLimit).toBe(1000);
    expect(spec.podMetricsEndpoints[0]).toMatchObject({ port: 'http', path: '/metrics', scheme: 'http' });
    expect(spec.podMetricsEndpoints[0]?.relabelings).toContainEqual({
      action: 'replace',
      targetLabel: 'job',
      replacement: 'upstash-pods',
    });
    expect(objects.some((o) => o.kind === 'ServiceMonitor')).toBe(false);
  });

  it('refuses both at once, and a scrape timeout longer than the interval', async () => {
    expect(
      await refusal(renderValues({ serviceMonitor: { enabled: true }, podMonitor: { enabled: true } })),
    ).toContain('keep one');
    expect(
      await refusal(renderValues({ serviceMonitor: { interval: '30s', scrapeTimeout: '1m' } })),
    ).toContain('serviceMonitor.scrapeTimeout (1m) is longer than serviceMonitor.interval (30s)');
  });
});

describe('probes', () => {
  it('has a startupProbe when enabled, on /healthz with its own timing', async () => {
    const c = container(
      await renderValues({ ...withToken, startupProbe: { enabled: true, failureThreshold: 60 } }),
    );
    expect(c.startupProbe).toMatchObject({
      httpGet: { path: '/healthz', port: 'http' },
      failureThreshold: 60,
    });
    expect(c.startupProbe).not.toHaveProperty('enabled');
    expect(container(await renderValues(withToken)).startupProbe).toBeUndefined();
  });

  it('takes a whole handler of the user’s instead of the chart’s', async () => {
    const exec = { command: ['/bin/true'] };
    const c = container(
      await renderValues({
        ...withToken,
        readinessProbe: { exec, periodSeconds: 7 },
        livenessProbe: { tcpSocket: { port: 9645 } },
      }),
    );
    expect(c.readinessProbe).toMatchObject({ exec, periodSeconds: 7 });
    expect(c.readinessProbe?.httpGet).toBeUndefined();
    expect(c.livenessProbe?.tcpSocket).toEqual({ port: 9645 });
    expect(c.livenessProbe?.httpGet).toBeUndefined();
  });

  it('refuses two handlers in one probe', async () => {
    const values = { livenessProbe: { exec: { command: ['x'] }, tcpSocket: { port: 1 } } };
    expect(await refusal(renderValues(values))).toContain(
      'livenessProbe: one handler at most (tcpSocket, exec given)',
    );
  });
});

describe('networkPolicy, extraManifests, image.registry', () => {
  it('a NetworkPolicy opens the metrics port to the given peers, and DNS and HTTPS out', async () => {
    const from = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }];
    const egress = [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: 3128, protocol: 'TCP' }] }];
    const policy = one(
      await renderValues({ ...withToken, networkPolicy: { enabled: true, ingress: from, egress } }),
      'NetworkPolicy',
    );
    await validate(policy);
    const spec = policy.spec as { ingress: { from?: unknown; ports: unknown[] }[]; egress: unknown[] };
    expect(spec.ingress).toEqual([{ ports: [{ port: 'http', protocol: 'TCP' }], from }]);
    expect(spec.egress).toContainEqual({ ports: [{ port: 443, protocol: 'TCP' }] });
    expect(spec.egress.at(-1)).toEqual(egress[0]);
  });

  it('renders extraManifests given as objects and as templated strings', async () => {
    const objects = await renderValues({
      ...withToken,
      extraManifests: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra-object' }, data: { a: 'b' } },
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra-{{ .Release.Name }}\n',
      ],
    });
    const names = objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name);
    expect(names).toContain('extra-object');
    expect(names).toContain('extra-upstash-exporter');
  });

  it('puts image.registry, or global.imageRegistry over it, in front of the repository', async () => {
    const image = async (values: Record<string, unknown>) =>
      container(await renderValues({ ...withToken, ...values })).image;
    expect(
      await image({ image: { registry: 'ghcr.io', repository: 'acme/upstash-exporter', tag: 'v1' } }),
    ).toBe('ghcr.io/acme/upstash-exporter:v1');
    expect(
      await image({
        global: { imageRegistry: 'mirror.local:5000' },
        image: { registry: 'ghcr.io', tag: 'v1' },
      }),
    ).toBe('mirror.local:5000/upstash-exporter:v1');
  });
});

describe('prometheusScrape, global.imagePullSecrets, dnsConfig, topologySpreadConstraints', () => {
  const pod = (objects: K8sObject[]) => podSpec(workloads(objects)[0]!);

  it('prometheusScrape annotates the Service for a Prometheus without the Operator; service.annotations win', async () => {
    const annotations = async (values: Record<string, unknown>) => {
      const service = one(await renderValues({ ...withToken, ...values }), 'Service');
      await validate(service);
      return service.metadata.annotations;
    };
    expect(await annotations({})).toBeUndefined();
    expect(await annotations({ prometheusScrape: true })).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9645',
      'prometheus.io/path': '/metrics',
      'prometheus.io/scheme': 'http',
    });
    const tls = { enabled: true, content: { tls_server_config: { cert_file: 'c', key_file: 'k' } } };
    expect(
      await annotations({
        prometheusScrape: true,
        containerPort: 9000,
        webConfig: tls,
        service: { annotations: { 'prometheus.io/path': '/custom', team: 'infra' } },
      }),
    ).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9000',
      'prometheus.io/path': '/custom',
      'prometheus.io/scheme': 'https',
      team: 'infra',
    });
  });

  it('global.imagePullSecrets (names or {name}) come before image.pullSecrets, each name once', async () => {
    const objects = await renderValues({
      ...withToken,
      global: { imagePullSecrets: ['mirror', { name: 'shared' }] },
      image: { pullSecrets: [{ name: 'shared' }, { name: 'own' }] },
    });
    await validate(workloads(objects)[0]!);
    expect(pod(objects).imagePullSecrets).toEqual([{ name: 'mirror' }, { name: 'shared' }, { name: 'own' }]);
    expect(pod(await renderValues(withToken)).imagePullSecrets).toBeUndefined();
  });

  it('passes dnsPolicy and dnsConfig; None without nameservers fails', async () => {
    const dnsConfig = {
      nameservers: ['10.0.0.10'],
      searches: ['svc.cluster.local'],
      options: [{ name: 'ndots', value: '2' }],
    };
    const objects = await renderValues({ ...withToken, dnsPolicy: 'None', dnsConfig });
    await validate(workloads(objects)[0]!);
    expect(pod(objects)).toMatchObject({ dnsPolicy: 'None', dnsConfig });
    expect(await refusal(renderValues({ ...withToken, dnsPolicy: 'None' }))).toContain(
      'dnsPolicy: None takes every DNS setting from dnsConfig',
    );
  });

  it('a spread constraint without labelSelector spreads this release’s pods; one with its own keeps it', async () => {
    const own = { matchLabels: { team: 'infra' } };
    const objects = await renderValues({
      ...withToken,
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
        {
          maxSkew: 2,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: own,
        },
      ],
    });
    await validate(workloads(objects)[0]!);
    const [first, second] = pod(objects).topologySpreadConstraints!;
    expect(first!.labelSelector).toEqual({
      matchLabels: {
        'app.kubernetes.io/name': 'upstash-exporter',
        'app.kubernetes.io/instance': 'upstash-exporter',
      },
    });
    expect(second!.labelSelector).toEqual(own);
  });
});

describe("the chart's README", () => {
  it('documents every value of values.yaml', () => {
    const readme = readFileSync(join(CHART, 'README.md'), 'utf8');
    const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
    const paths: string[] = [];
    // Every leaf, by its dotted path; a map of the user's own keys (config, resources, labels) as a whole.
    const walk = (value: unknown, path: string) => {
      const map = typeof value === 'object' && value !== null && !Array.isArray(value);
      if (
        !map ||
        Object.keys(value).length === 0 ||
        ['resources', 'dashboard.labels', 'config'].includes(path)
      ) {
        paths.push(path);
        return;
      }
      for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
    };
    for (const [key, value] of Object.entries(values)) walk(value, key);
    const missing = paths.filter((path) => !readme.includes(`\`${path}\``));
    expect(missing).toEqual([]);
    expect(paths.length).toBeGreaterThan(70);
  });
});
