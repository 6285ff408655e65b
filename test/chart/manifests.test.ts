import { describe, expect, it } from 'vitest';
import {
  notes,
  one,
  podSpec,
  refusal,
  renderValues,
  validate,
  valuesFile,
  withToken,
  workloads,
  type K8sObject,
} from './helm.js';

// Values that rendered a manifest the API server refuses, or one that does something other than
// the values say. Each fails with a message saying what to do, or renders what was asked (validated by
// kubernetes-models).

const render = (values: Record<string, unknown>) => renderValues({ ...withToken, ...values });
const pod = (objects: K8sObject[]) => podSpec(workloads(objects)[0]!);
async function validAll(objects: K8sObject[]): Promise<K8sObject[]> {
  for (const obj of objects) await validate(obj);
  return objects;
}

describe('extra volumes and mounts beside the chart’s own', () => {
  it.each(['config', 'credentials', 'web-config', 'tls', 'tmp'])(
    'an extra volume named %s (the chart’s) fails',
    async (name) => {
      const message = await refusal(render({ extraVolumes: [{ name, emptyDir: {} }] }));
      expect(message).toContain(`extraVolumes[0]: the name ${name} is taken`);
      expect(message).toContain('rename it');
    },
  );

  it('two extra volumes of one name fail', async () => {
    const volumes = [
      { name: 'cache', emptyDir: {} },
      { name: 'cache', emptyDir: {} },
    ];
    expect(await refusal(render({ extraVolumes: volumes }))).toContain(
      'extraVolumes[1]: the name cache is taken',
    );
  });

  it.each([
    ['/etc/upstash-exporter/config', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter/secrets/', '/etc/upstash-exporter/secrets'],
    ['/tmp', '/tmp'],
    ['/tmp/cache', '/tmp'],
    ['/etc/upstash-exporter/config/extra', '/etc/upstash-exporter/config'],
  ])('a mount at or inside a path the chart mounts (%s) fails', async (mountPath, taken) => {
    const message = await refusal(
      render({
        extraVolumes: [{ name: 'extra', emptyDir: {} }],
        extraVolumeMounts: [{ name: 'extra', mountPath }],
      }),
    );
    expect(message).toContain(
      `extraVolumeMounts[0]: ${mountPath.replace(/\/$/, '')} is already mounted at ${taken}`,
    );
  });

  it('two extra mounts at one path fail; a mount of no volume fails', async () => {
    const volumes = [
      { name: 'a', emptyDir: {} },
      { name: 'b', emptyDir: {} },
    ];
    const mounts = [
      { name: 'a', mountPath: '/data' },
      { name: 'b', mountPath: '/data' },
    ];
    expect(await refusal(render({ extraVolumes: volumes, extraVolumeMounts: mounts }))).toContain(
      'extraVolumeMounts[1]: /data is already mounted at /data',
    );
    expect(await refusal(render({ extraVolumeMounts: [{ name: 'missing', mountPath: '/data' }] }))).toContain(
      'extraVolumeMounts[0]: no volume is named missing',
    );
  });

  it('one extra mount inside another of the user’s is fine (only the chart’s paths are kept clear)', async () => {
    const volumes = [
      { name: 'data', emptyDir: {} },
      { name: 'cache', emptyDir: {} },
    ];
    const mounts = [
      { name: 'data', mountPath: '/data' },
      { name: 'cache', mountPath: '/data/cache' },
    ];
    const objects = await validAll(await render({ extraVolumes: volumes, extraVolumeMounts: mounts }));
    expect(pod(objects).containers[0]!.volumeMounts?.slice(-2)).toEqual(mounts);
  });

  it('a secret.mountPath of its own moves the reserved path with it', async () => {
    const values = {
      secret: { ...withToken.secret, mountPath: '/var/run/upstash' },
      extraVolumes: [{ name: 'extra', emptyDir: {} }],
      extraVolumeMounts: [{ name: 'extra', mountPath: '/var/run/upstash' }],
    };
    expect(await refusal(renderValues(values))).toContain('is already mounted at /var/run/upstash');
  });

  it('a volume and mount of their own render beside the chart’s', async () => {
    const objects = await validAll(
      await render({
        extraVolumes: [{ name: 'ca', configMap: { name: 'ca' } }],
        extraVolumeMounts: [{ name: 'ca', mountPath: '/etc/ssl/extra', readOnly: true }],
      }),
    );
    expect(pod(objects).volumes?.map((v) => v.name)).toEqual(['config', 'credentials', 'tmp', 'ca']);
    expect(pod(objects).containers[0]!.volumeMounts?.at(-1)).toEqual({
      name: 'ca',
      mountPath: '/etc/ssl/extra',
      readOnly: true,
    });
  });
});

describe('secret.data keys', () => {
  it.each(['..', '..data', '.', '..hidden', 'a b', 'a/b', 'tökén', 'x'.repeat(254)])(
    '%j is not a valid Secret key: fails and says what is',
    async (key) => {
      const message = await refusal(renderValues({ secret: { data: { [key]: 'x' } } }));
      expect(message).toContain('is not a valid Secret key');
      expect(message).toContain('rename it');
    },
  );

  it.each(['qstash-token', '.hidden', 'a..b', 'UPSTASH_API_KEY.txt'])('%j is', async (key) => {
    const secret = one(await validAll(await renderValues({ secret: { data: { [key]: 'x' } } })), 'Secret');
    expect(Object.keys(secret.data ?? {})).toEqual([key]);
  });
});

describe('podDisruptionBudget', () => {
  const pdb = async (values: Record<string, unknown>) =>
    one(await validAll(await render({ sharding: { shards: 3 }, ...values })), 'PodDisruptionBudget').spec;
  const notesFor = async (values: Record<string, unknown>) =>
    notes('-f', await valuesFile({ ...withToken, sharding: { shards: 3 }, ...values }));

  it('renders maxUnavailable: 0 as given (not 1), and the default as 1', async () => {
    expect(await pdb({ podDisruptionBudget: { enabled: true, maxUnavailable: 0 } })).toMatchObject({
      maxUnavailable: 0,
    });
    expect(await pdb({ podDisruptionBudget: { enabled: true } })).toMatchObject({ maxUnavailable: 1 });
    expect(await pdb({ podDisruptionBudget: { enabled: true, maxUnavailable: '0%' } })).toMatchObject({
      maxUnavailable: '0%',
    });
  });

  it.each([
    [{ maxUnavailable: 0 }, 'maxUnavailable 0'],
    [{ maxUnavailable: '0%' }, 'maxUnavailable 0%'],
    [{ minAvailable: 3 }, 'minAvailable 3 of 3 pod(s)'],
    [{ minAvailable: 4 }, 'minAvailable 4 of 3 pod(s)'],
    [{ minAvailable: '100%' }, 'minAvailable 100% of 3 pod(s)'],
  ])('%j, which blocks every drain, renders with a warning in NOTES', async (budget, said) => {
    const text = await notesFor({ podDisruptionBudget: { enabled: true, ...budget } });
    expect(text).toContain(`WARNING: the PodDisruptionBudget allows no voluntary eviction (${said})`);
  });

  it.each([{ maxUnavailable: 1 }, { minAvailable: 2 }, { minAvailable: '50%' }])(
    '%j: no warning',
    async (budget) => {
      expect(await notesFor({ podDisruptionBudget: { enabled: true, ...budget } })).not.toContain(
        'PodDisruptionBudget',
      );
    },
  );

  it('one shard with minAvailable: 1 warns (one pod, none may go)', async () => {
    const text = await notesFor({
      sharding: { shards: 1 },
      podDisruptionBudget: { enabled: true, minAvailable: 1 },
    });
    expect(text).toContain('minAvailable 1 of 1 pod(s)');
  });
});

describe('memory quantities', () => {
  it.each([
    ['limits', 384, '384'],
    ['requests', 128, '128'],
    ['limits', '402653184', '402653184'],
    ['limits', '384m', '384m'],
    ['limits', '3.5e8', '3.5e8'],
  ])('resources.%s.memory %j fails and asks for a quantity like 384Mi', async (kind, memory, shown) => {
    const resources = { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '384Mi' } };
    (resources as Record<string, Record<string, unknown>>)[kind]!.memory = memory;
    const message = await refusal(render({ resources }));
    expect(message).toContain(`resources.${kind}.memory: ${shown} is a number of bytes`);
    expect(message).toContain('like 384Mi');
  });

  it('an extra container’s bare-number memory fails the same way', async () => {
    const sidecar = { name: 'sidecar', image: 'busybox:1.37', resources: { limits: { memory: 64 } } };
    expect(await refusal(render({ extraContainers: [sidecar] }))).toContain(
      'extraContainers[0].resources.limits.memory: 64 is a number of bytes',
    );
  });

  it('quantities with a unit render as given; cpu may be a bare number (cores)', async () => {
    const resources = { requests: { cpu: 1, memory: '200M' }, limits: { memory: '1Gi' } };
    const c = pod(await validAll(await render({ resources }))).containers[0]!;
    expect(c.resources).toEqual({ requests: { cpu: 1, memory: '200M' }, limits: { memory: '1Gi' } });
  });
});

describe('pass-through objects are typed by values.schema.json', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'a toleration with a string for tolerationSeconds',
      { tolerations: [{ key: 'k', tolerationSeconds: '60' }] },
      '/tolerations/0/tolerationSeconds',
    ],
    [
      'a toleration with an unknown operator',
      { tolerations: [{ key: 'k', operator: 'exists' }] },
      '/tolerations/0/operator',
    ],
    [
      'a toleration with a misspelt field',
      { tolerations: [{ key: 'k', efect: 'NoSchedule' }] },
      "'efect' not allowed",
    ],
    [
      'a spread constraint with a string maxSkew',
      {
        topologySpreadConstraints: [
          { maxSkew: '1', topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
      '/topologySpreadConstraints/0/maxSkew',
    ],
    [
      'a spread constraint without whenUnsatisfiable',
      { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone' }] },
      "missing property 'whenUnsatisfiable'",
    ],
    [
      'an affinity weight as a string',
      {
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: '100', podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } },
            ],
          },
        },
      },
      '/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight',
    ],
    [
      'an affinity weight above 100',
      {
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, preference: {} }],
          },
        },
      },
      '/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight',
    ],
    [
      'a pod affinity term without topologyKey',
      {
        affinity: {
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: {} }] },
        },
      },
      "missing property 'topologyKey'",
    ],
    [
      'tlsConfig.insecureSkipVerify as a string',
      { serviceMonitor: { tlsConfig: { insecureSkipVerify: 'true' } } },
      '/serviceMonitor/tlsConfig/insecureSkipVerify',
    ],
    [
      'tlsConfig with a misspelt field',
      { serviceMonitor: { tlsConfig: { serverNme: 'x' } } },
      "'serverNme' not allowed",
    ],
    [
      'tlsConfig.ca without a key',
      { serviceMonitor: { tlsConfig: { ca: { secret: { name: 'ca' } } } } },
      "missing property 'key'",
    ],
    [
      'a networkPolicy.ingress entry without a peer',
      { networkPolicy: { enabled: true, ingress: [{}] } },
      '/networkPolicy/ingress/0',
    ],
    [
      'a networkPolicy.ingress entry with a misspelt peer',
      { networkPolicy: { enabled: true, ingress: [{ namespaceSelektor: {} }] } },
      "'namespaceSelektor' not allowed",
    ],
    [
      'an ipBlock beside a selector',
      { networkPolicy: { enabled: true, ingress: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] } },
      '/networkPolicy/ingress/0',
    ],
    [
      'an egress port as a boolean',
      { networkPolicy: { enabled: true, egress: [{ ports: [{ port: true }] }] } },
      '/networkPolicy/egress/0/ports/0/port',
    ],
    [
      'a relabeling with a string for sourceLabels',
      { serviceMonitor: { relabelings: [{ sourceLabels: 'pod', targetLabel: 'x' }] } },
      '/serviceMonitor/relabelings/0/sourceLabels',
    ],
    [
      'a metric relabeling with an unknown action',
      { serviceMonitor: { metricRelabelings: [{ action: 'relabel' }] } },
      '/serviceMonitor/metricRelabelings/0/action',
    ],
    [
      'dnsConfig with a number as an option value',
      { dnsConfig: { options: [{ name: 'ndots', value: 2 }] } },
      '/dnsConfig/options/0/value',
    ],
  ])('%s fails', async (_what, values, path) => {
    expect(await refusal(render(values))).toContain(path);
  });

  it('typed objects render as given and validate', async () => {
    const objects = await validAll(
      await render({
        tolerations: [
          {
            key: 'dedicated',
            operator: 'Equal',
            value: 'monitoring',
            effect: 'NoExecute',
            tolerationSeconds: 60,
          },
        ],
        affinity: {
          nodeAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 50,
                preference: { matchExpressions: [{ key: 'pool', operator: 'In', values: ['infra'] }] },
              },
            ],
          },
        },
        serviceMonitor: {
          enabled: true,
          tlsConfig: {
            ca: { secret: { name: 'ca', key: 'ca.crt' } },
            serverName: 'exporter',
            insecureSkipVerify: false,
          },
        },
        networkPolicy: {
          enabled: true,
          ingress: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }],
        },
      }),
    );
    expect(pod(objects).tolerations).toEqual([
      {
        key: 'dedicated',
        operator: 'Equal',
        value: 'monitoring',
        effect: 'NoExecute',
        tolerationSeconds: 60,
      },
    ]);
    const endpoint = (one(objects, 'ServiceMonitor').spec as { endpoints: { tlsConfig: unknown }[] })
      .endpoints[0]!;
    expect(endpoint.tlsConfig).toEqual({
      ca: { secret: { name: 'ca', key: 'ca.crt' } },
      serverName: 'exporter',
      insecureSkipVerify: false,
    });
  });
});
