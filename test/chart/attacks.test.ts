import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CHART,
  CI_QSTASH_TOKEN,
  notes,
  one,
  podSpec,
  rawValuesFile,
  refusal,
  render,
  renderValues,
  validate,
  valuesFile,
  withToken,
  workloads,
  type K8sObject,
} from './helm.js';

// The chart rendered with careless and hostile values. Every value renders a safe, valid
// manifest or fails `helm template` with a message that says why; each finding is tested in its class.

const defaults = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const TOKEN = CI_QSTASH_TOKEN;
/** The defaults with every optional object on, so that a hostile value reaches every template. */
const everythingOn = (): Record<string, unknown> => {
  const values = structuredClone(defaults) as Record<string, Record<string, unknown>>;
  for (const key of ['serviceMonitor', 'prometheusRule', 'dashboard', 'podDisruptionBudget', 'networkPolicy'])
    values[key]!.enabled = true;
  values.startupProbe!.enabled = true;
  values.webConfig = { ...values.webConfig, enabled: true, content: { basic_auth_users: { p: '$2y$10$x' } } };
  values.secret = { ...values.secret, data: { 'qstash-token': TOKEN } };
  return values;
};
const container = (objects: K8sObject[]) => podSpec(workloads(objects)[0]!).containers[0]!;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Every key anywhere in a value, to find keys a hostile string smuggled in. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      keysOf(item, into);
    }
  }
  return into;
}

/** Everything on, with one value replaced at a path. */
function withValue(path: (string | number)[], value: unknown): Record<string, unknown> {
  const copy = everythingOn();
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
  return copy;
}

/** The paths of every string, list of strings and map of the defaults. */
function hostileTargets(): { path: (string | number)[]; kind: 'string' | 'list' | 'map' }[] {
  const targets: { path: (string | number)[]; kind: 'string' | 'list' | 'map' }[] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    if (typeof value === 'string') targets.push({ path, kind: 'string' });
    else if (Array.isArray(value)) {
      if (value.length === 0 || value.every((item) => typeof item === 'string'))
        targets.push({ path, kind: 'list' });
      value.forEach((item, i) => walk(item, [...path, i]));
    } else if (typeof value === 'object' && value !== null) {
      if (Object.keys(value).length === 0) targets.push({ path, kind: 'map' });
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
  };
  walk(defaults, []);
  return targets;
}

describe('credentials outside the Secret', () => {
  it.each([
    ['config.qstash[0].api_key', { qstash: [{ name: 'eu', api_key: 'x' }] }],
    ['config.qstash[0].token', { qstash: [{ name: 'eu', token: 'x' }] }],
    ['config.management[0].token', { management: [{ name: 'm', email: 'a@b.c', token: 'x' }] }],
    ['config.management[0].api_key', { management: [{ name: 'm', email: 'a@b.c', api_key: 'x' }] }],
    ['config.token', { token: 'x' }],
    ['config.password', { password: 'x' }],
    ['config.http.bearer', { http: { bearer: 'x' } }],
    ['config.qstash[0].QSTASH_SECRET', { qstash: [{ name: 'eu', QSTASH_SECRET: 'x' }] }],
    // camelCase, as a platform engineer's own tooling may write them
    ['config.qstash[0].qstashToken', { qstash: [{ name: 'eu', qstashToken: 'x' }] }],
    [
      'config.management[0].upstashApiKey',
      { management: [{ name: 'm', email: 'a@b.c', upstashApiKey: 'x' }] },
    ],
    ['config.management[0].apiKey', { management: [{ name: 'm', email: 'a@b.c', apiKey: 'x' }] }],
    ['config.management[0].APIKey', { management: [{ name: 'm', email: 'a@b.c', APIKey: 'x' }] }],
    ['config.http.proxyPassword', { http: { proxyPassword: 'x' } }],
    ['config.http.clientSecret', { http: { clientSecret: 'x' } }],
    ['config.http.basicAuth', { http: { basicAuth: 'x' } }],
  ])('a key naming a credential (%s) fails and says to use the Secret', async (path, config) => {
    const message = await refusal(renderValues({ config }));
    expect(message).toContain(`${path}: credentials must not be in the ConfigMap`);
    expect(message).toContain('secret.data');
  });

  it.each([
    [
      'a URL with user and password',
      'https://user:pass@qstash.upstash.io',
      'is a URL with a user or password',
    ],
    ['a URL with a user', 'https://token@qstash.upstash.io', 'is a URL with a user or password'],
    ['a QStash-shaped token', 'eyJVc2VySUQiOiJ4In0=', 'looks like a token'],
    ['an Authorization header', 'Bearer abcdefghijkl', 'looks like an Authorization header'],
    ['an Upstash API key (a UUID)', '96ad0856-03b1-4ee7-9666-e81abd0349e1', 'looks like an Upstash API key'],
    ['a UUID in upper case', '96AD0856-03B1-4EE7-9666-E81ABD0349E1', 'looks like an Upstash API key'],
  ])('%s as any config value fails', async (_what, value, why) => {
    const message = await refusal(renderValues({ config: { qstash: [{ name: 'eu', url: value }] } }));
    expect(message).toContain(`config.qstash[0].url ${why}`);
  });

  it.each([
    ['podAnnotations', { podAnnotations: { note: 'eyJVc2VySUQiOiJ4In0=' } }, 'podAnnotations.note'],
    ['extraArgs', { extraArgs: ['--proxy=http://u:p@proxy:3128'] }, 'extraArgs[0]'],
    [
      'affinity',
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: 'k', operator: 'In', values: ['Basic dXNlcjpwYXNzd29yZA=='] }] },
              ],
            },
          },
        },
      },
      'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]',
    ],
    [
      'an extraManifests ConfigMap',
      { extraManifests: [{ apiVersion: 'v1', kind: 'ConfigMap', data: { t: 'eyJVc2VySUQiOiJ4In0=' } }] },
      'extraManifests[0].data.t',
    ],
    [
      'serviceMonitor.tlsConfig',
      { serviceMonitor: { tlsConfig: { serverName: 'https://u:p@x' } } },
      'serviceMonitor.tlsConfig.serverName',
    ],
  ])('a credential-shaped value in %s fails too', async (_where, values, path) => {
    expect(await refusal(renderValues(values))).toContain(path);
  });

  it('camelCase keys that name a file are fine (tokenFile, apiKeyFile), as are database IDs, which are UUIDs', async () => {
    const id = '96ad0856-03b1-4ee7-9666-e81abd0349e1';
    const config = {
      qstash: [{ name: 'eu', token_file: '/etc/upstash-exporter/secrets/qstash-token' }],
      management: [
        { name: 'm', email: 'a@b.c', api_key_file: '/etc/upstash-exporter/secrets/k', databases: [id] },
      ],
      extra: { tokenFile: '/x', apiKeyFile: '/y', keyspace: 'z', monkey: 'w' },
    };
    const configMap = (await renderValues({ ...withToken, config })).find((o) => o.kind === 'ConfigMap')!;
    expect(configMap.data!['config.yaml']).toContain(id);
    // The same UUID anywhere else is taken for an API key.
    const elsewhere = { ...config, management: [{ ...config.management[0], name: id }] };
    expect(await refusal(renderValues({ ...withToken, config: elsewhere }))).toContain(
      'config.management[0].name looks like an Upstash API key (a UUID)',
    );
    expect(await refusal(renderValues({ ...withToken, podAnnotations: { key: id } }))).toContain(
      'podAnnotations.key looks like an Upstash API key',
    );
  });

  it.each(['username', 'password'])(
    'serviceMonitor.basicAuth.%s as a plain string fails and asks for a Secret reference',
    async (field) => {
      const basicAuth = {
        username: { name: 's', key: 'u' },
        password: { name: 's', key: 'p' },
        [field]: 'plain',
      };
      const message = await refusal(
        renderValues({ ...withToken, serviceMonitor: { enabled: true, basicAuth } }),
      );
      expect(message).toContain(
        `serviceMonitor.basicAuth.${field}: a plain value would be written into the ServiceMonitor`,
      );
      expect(message).toContain('{name: <secret>, key: <key>}');
    },
  );

  it('serviceMonitor.basicAuth with Secret references renders them in the ServiceMonitor, and nothing else', async () => {
    const basicAuth = {
      username: { name: 's', key: 'u' },
      password: { name: 's', key: 'p', optional: false },
    };
    const objects = await renderValues({ ...withToken, serviceMonitor: { enabled: true, basicAuth } });
    const monitor = one(objects, 'ServiceMonitor');
    await validate(monitor);
    expect((monitor.spec as { endpoints: { basicAuth: unknown }[] }).endpoints[0]!.basicAuth).toEqual(
      basicAuth,
    );
    expect(
      await refusal(renderValues({ serviceMonitor: { basicAuth: { password: { name: 's' } } } })),
    ).toContain('/serviceMonitor/basicAuth/password');
  });

  it('is allowed where it belongs: secret.data, webConfig.content and an extraManifests Secret', async () => {
    const token = 'eyJVc2VySUQiOiJ4In0=';
    const objects = await renderValues({
      secret: { data: { 'qstash-token': token } },
      webConfig: { enabled: true, content: { basic_auth_users: { p: 'Bearer abcdefghijkl' } } },
      extraManifests: [
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { t: token } },
      ],
    });
    const secrets = objects.filter((o) => o.kind === 'Secret');
    expect(secrets).toHaveLength(3);
    for (const obj of objects.filter((o) => o.kind !== 'Secret'))
      expect(JSON.stringify(obj)).not.toContain(token);
  });

  it.each(['QSTASH_TOKEN', 'UPSTASH_API_KEY', 'QSTASH_URL', 'UPSTASH_EMAIL', 'UPSTASH_EXPORTER_CONFIG'])(
    'env %s, which --config never reads, fails in any form',
    async (name) => {
      for (const env of [
        { name, value: 'x' },
        { name, valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ]) {
        const message = await refusal(renderValues({ env: [env] }));
        expect(message).toContain(`env[0] (${name}): the exporter reads its settings from the config file`);
      }
    },
  );

  it.each(['API_TOKEN', 'MY_PASSWORD', 'AWS_SECRET_ACCESS_KEY', 'PROXY_AUTH'])(
    'env %s with a plain value fails; from a Secret it renders',
    async (name) => {
      expect(await refusal(renderValues({ env: [{ name, value: 'x' }] }))).toContain(
        `env[0] (${name}): a plain value under a name that says credential`,
      );
      const env = { name, valueFrom: { secretKeyRef: { name: 'proxy', key: 'k' } } };
      expect(container(await renderValues({ ...withToken, env: [env] })).env).toEqual([env]);
    },
  );

  it('an extra container’s env with a plain credential fails too', async () => {
    const sidecar = { name: 'sidecar', image: 'busybox:1.37', env: [{ name: 'API_TOKEN', value: 'x' }] };
    expect(await refusal(renderValues({ ...withToken, extraInitContainers: [sidecar] }))).toContain(
      'extraInitContainers[0].env[0] (API_TOKEN): a plain value under a name that says credential',
    );
  });

  it('env with a proxy URL carrying a password fails; without one it renders', async () => {
    const proxy = (value: string) => renderValues({ ...withToken, env: [{ name: 'HTTPS_PROXY', value }] });
    expect(await refusal(proxy('http://user:pw@proxy:3128'))).toContain('env[0].value is a URL with a user');
    expect(container(await proxy('http://proxy:3128')).env).toEqual([
      { name: 'HTTPS_PROXY', value: 'http://proxy:3128' },
    ]);
  });

  it('a probe header carrying Authorization fails', async () => {
    const headers = [{ name: 'authorization', value: 'x' }];
    const message = await refusal(
      renderValues({ readinessProbe: { httpGet: { path: '/readyz', port: 'http', httpHeaders: headers } } }),
    );
    expect(message).toContain('readinessProbe.httpGet.httpHeaders: an Authorization header');
  });
});

describe('probes with client certificates required', () => {
  const mtls = (type: string) =>
    renderValues({
      ...withToken,
      startupProbe: { enabled: true },
      webConfig: {
        enabled: true,
        tlsSecret: 'tls',
        content: { tls_server_config: { cert_file: 'c', key_file: 'k', client_auth_type: type } },
      },
    });

  it.each(['RequireAndVerifyClientCert', 'RequireAnyClientCert'])(
    '%s: every probe is a TCP connection (the kubelet has no client certificate)',
    async (type) => {
      const c = container(await mtls(type));
      for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
        expect(probe?.tcpSocket).toEqual({ port: 'http' });
        expect(probe?.httpGet).toBeUndefined();
      }
    },
  );

  it.each([
    ['basic_auth_users in the content', { content: { basic_auth_users: { p: '$2y$10$x' } } }],
    ['an existing Secret with basicAuth', { existingSecret: 'web', basicAuth: true }],
  ])('under basic auth (%s), readiness is the open /readyz, with no credential', async (_, web) => {
    const c = container(await renderValues({ ...withToken, webConfig: { enabled: true, ...web } }));
    expect(c.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', scheme: 'HTTP' });
    expect(c.readinessProbe?.httpGet?.httpHeaders).toBeUndefined();
    expect(c.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', scheme: 'HTTP' });
  });

  it.each(['NoClientCert', 'RequestClientCert', 'VerifyClientCertIfGiven'])(
    '%s: the probes stay HTTPS requests (a connection without a certificate is served)',
    async (type) => {
      const c = container(await mtls(type));
      expect(c.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', scheme: 'HTTPS' });
      expect(c.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', scheme: 'HTTPS' });
    },
  );

  it('an existing web config Secret says so with webConfig.clientAuth', async () => {
    const c = container(
      await renderValues({
        ...withToken,
        webConfig: { enabled: true, existingSecret: 'web', tls: true, clientAuth: true },
      }),
    );
    expect(c.readinessProbe?.tcpSocket).toEqual({ port: 'http' });
  });
});

describe('hostile strings', () => {
  const HOSTILE = 'x"\nhostNetwork: true\nprivileged: true #';
  const targets = hostileTargets();

  it('reach every string, list and map of values.yaml', () => {
    const paths = targets.map((t) => t.path.join('.'));
    for (const path of ['image.tag', 'service.portName', 'priorityClassName', 'commonLabels', 'extraArgs'])
      expect(paths).toContain(path);
    expect(targets.length).toBeGreaterThan(40);
  });

  it.each(targets.map((t): [string, (typeof targets)[number]] => [t.path.join('.'), t]))(
    '%s: add no key to any object (or fail)',
    async (_path, { path, kind }) => {
      const value =
        kind === 'string' ? HOSTILE : kind === 'list' ? [HOSTILE] : { [HOSTILE]: HOSTILE, a: HOSTILE };
      const values = withValue(path, value);
      const rendered = await render({ files: [await valuesFile(values)] }).catch(
        (error: unknown) => error as Error,
      );
      if (rendered instanceof Error) {
        // A refusal must come from the schema or the chart's own checks, never from a broken YAML; but
        // for extraManifests, whose strings are YAML documents of the user's by definition.
        if (path[0] !== 'extraManifests')
          expect(rendered.message).not.toMatch(
            /YAML parse error|error converting YAML|did not find expected/i,
          );
        return;
      }
      for (const obj of rendered) {
        expect(keysOf(obj).has('hostNetwork'), `${obj.kind} ${obj.metadata.name}`).toBe(false);
        await validate(obj);
      }
      expect(keysOf(container(rendered).securityContext).has('privileged')).toBe(true);
      expect(container(rendered).securityContext?.privileged).toBe(false);
    },
  );
});

describe('settings the chart owns', () => {
  it.each([
    ['sharding', { shard: 0, total: 3 }, 'sharding.shards'],
    ['listen_address', ':9000', 'containerPort'],
    ['log_level', 'debug', 'log.level'],
    ['log_format', 'text', 'log.format'],
    ['web_config_file', '/x.yml', 'webConfig'],
  ])('config.%s fails and names the value to use', async (key, value, use) => {
    const message = await refusal(renderValues({ config: { ...(defaults.config as object), [key]: value } }));
    expect(message).toContain(`config.${key}: the chart sets this from ${use}`);
  });

  const owned = [
    '--config',
    '--web.listen-address',
    '--web.config.file',
    '--log.level',
    '--log.format',
    '--shard',
    '--total-shards',
    '--demo',
    '--check-config',
    '--version',
    '--help',
  ];
  it.each(owned.flatMap((flag) => [[flag], [`${flag}=1`]]))('extraArgs %s fails', async (arg) => {
    const message = await refusal(renderValues({ ...withToken, extraArgs: [arg] }));
    expect(message).toContain(`extraArgs[0] (${arg}): the chart owns ${arg.replace(/=.*/, '')}`);
  });

  it('extraArgs the chart does not own are passed on', async () => {
    const c = container(await renderValues({ ...withToken, extraArgs: ['--web.enable-lifecycle'] }));
    expect(c.args?.at(-1)).toBe('--web.enable-lifecycle');
  });
});

describe('names with shards', () => {
  const sharded = { ...withToken, sharding: { shards: 3 } };

  it.each([
    ['a 53-character release name (helm allows no longer)', { release: 'r'.repeat(53) }, {}],
    ['a 36-character release name', { release: 'a'.repeat(36) }, {}],
    ['a 63-character fullnameOverride', {}, { fullnameOverride: `a${'-b'.repeat(31)}` }],
  ])(
    '%s: the StatefulSet keeps to 52 characters, its revision label to 63',
    async (_what, options, values) => {
      const objects = await renderValues({ ...sharded, ...values }, options);
      const set = one(objects, 'StatefulSet');
      expect(set.metadata.name.length).toBeLessThanOrEqual(52);
      expect(set.metadata.name).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
      // controller-revision-hash: <name>-<hash of up to 10 characters>
      expect(`${set.metadata.name}-${'h'.repeat(10)}`.length).toBeLessThanOrEqual(63);
      expect(one(objects, 'Service').metadata.name).toBe(set.metadata.name);
      for (const obj of objects) await validate(obj);
    },
  );

  it('a release name that cannot name a Service (a dot, a leading digit) fails and says what to do', async () => {
    for (const release of ['my.release', '1st']) {
      expect(await refusal(renderValues(withToken, { release }))).toContain('set fullnameOverride');
    }
  });
});

describe('labels for every allowed tag', () => {
  const digest = `sha256:${'c'.repeat(64)}`;
  it.each([
    'v1.2.3',
    '1.0.0-rc.1',
    '_underscore',
    'x'.repeat(128),
    `${'a'.repeat(62)}.-_b`,
    `v1@${digest}`,
    `${'t'.repeat(70)}@${digest}`,
  ])('image.tag %s', async (tag) => {
    const objects = await renderValues({ ...withToken, image: { tag } });
    for (const obj of objects) {
      for (const [key, value] of Object.entries(obj.metadata.labels ?? {})) {
        expect(value.length, `${obj.kind} ${key}`).toBeLessThanOrEqual(63);
        expect(value, `${obj.kind} ${key}`).toMatch(LABEL_VALUE);
      }
      await validate(obj);
    }
    const [bare, pinned] = tag.split('@');
    expect(container(objects).image).toBe(
      `upstash-exporter:${bare!}${pinned === undefined ? '' : `@${pinned}`}`,
    );
  });

  it('a tag outside the OCI grammar fails the schema; two different digests fail', async () => {
    expect(await refusal(renderValues({ image: { tag: 'v1+build' } }))).toContain('/image/tag');
    const other = `sha256:${'d'.repeat(64)}`;
    expect(await refusal(renderValues({ image: { tag: `v1@${digest}`, digest: other } }))).toContain(
      'keep one of them',
    );
  });
});

describe('hardening cannot be dropped', () => {
  it.each([
    ['securityContext: null', { securityContext: null }],
    ['securityContext: {}', { securityContext: {} }],
    ['capabilities: null', { securityContext: { capabilities: null } }],
    ['podSecurityContext: {}', { podSecurityContext: {} }],
  ])('%s: fails, or renders the hardening', async (_what, values) => {
    const rendered = await renderValues({ ...withToken, ...values }).catch((e: unknown) => e as Error);
    if (rendered instanceof Error) {
      expect(rendered.message).toContain('missing property');
      return;
    }
    const pod = podSpec(workloads(rendered)[0]!);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers[0]!.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it.each([
    [{ podSecurityContext: { runAsUser: 0 } }, 'runAsUser'],
    [{ securityContext: { runAsUser: 0 } }, 'runAsUser'],
    [{ podSecurityContext: { runAsGroup: 0 } }, 'runAsGroup'],
    [{ securityContext: { privileged: true } }, 'privileged'],
    [{ securityContext: { allowPrivilegeEscalation: true } }, 'allowPrivilegeEscalation'],
    [{ securityContext: { readOnlyRootFilesystem: false } }, 'readOnlyRootFilesystem'],
    [{ podSecurityContext: { runAsNonRoot: false } }, 'runAsNonRoot'],
    [{ securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }, 'capabilities'],
    [{ podSecurityContext: { seccompProfile: { type: 'Unconfined' } } }, 'seccompProfile'],
  ])('%j fails', async (values, word) => {
    expect(await refusal(renderValues({ ...withToken, ...values }))).toContain(word);
  });

  it('every value set to null fails as missing instead of rendering without it', async () => {
    for (const key of Object.keys(defaults).filter((k) => k !== 'global')) {
      const message = await refusal(render({ set: [`${key}=null`] }));
      expect(message, key).toContain(`missing property '${key}'`);
    }
  });
});

describe('secret.data', () => {
  it('refuses a number (YAML would turn 12345678901234567890123 into 1.2345678901234568e+22)', async () => {
    const file = await rawValuesFile('secret:\n  data:\n    key: 12345678901234567890123\n');
    const message = await refusal(render({ files: [file] }));
    expect(message).toContain('/secret/data/key');
  });

  it('keeps a string of digits exactly (--set-string)', async () => {
    const digits = '12345678901234567890123';
    const secret = one(await render({ setString: [`secret.data.key=${digits}`] }), 'Secret');
    expect(Buffer.from(secret.data!.key!, 'base64').toString()).toBe(digits);
  });
});

describe('strategy', () => {
  it('Recreate leaves the default rollingUpdate out', async () => {
    const deployment = one(
      await renderValues({ ...withToken, strategy: { type: 'Recreate' } }),
      'Deployment',
    );
    expect(deployment.spec?.strategy).toEqual({ type: 'Recreate' });
    await validate(deployment);
  });

  it('a RollingUpdate that can never progress fails', async () => {
    const values = {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } },
    };
    expect(await refusal(renderValues(values))).toContain('cannot both be 0');
  });
});

describe('checksum/secret', () => {
  const checksum = async (token: string, options: { release?: string; namespace?: string } = {}) => {
    const objects = await renderValues({ secret: { data: { 'qstash-token': token } } }, options);
    return podSpecAnnotations(one(objects, 'Deployment'))['checksum/secret']!;
  };
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('changes with the token, is stable, and is neither a plain hash of it nor the same across releases', async () => {
    const first = await checksum('token-one');
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await checksum('token-one')).toBe(first);
    expect(await checksum('token-two')).not.toBe(first);
    for (const plain of ['token-one', 'qstash-token: token-one\n', '{"qstash-token":"token-one"}'])
      expect(first).not.toBe(sha256(plain));
    expect(await checksum('token-one', { release: 'other' })).not.toBe(first);
    expect(await checksum('token-one', { namespace: 'elsewhere' })).not.toBe(first);
  });
});

function podSpecAnnotations(workload: K8sObject): Record<string, string> {
  return (workload.spec as { template: { metadata: { annotations: Record<string, string> } } }).template
    .metadata.annotations;
}

describe('a Service reachable from outside the cluster', () => {
  const notesFor = async (values: Record<string, unknown>) =>
    notes('-f', await valuesFile({ ...withToken, ...values }));

  it.each(['LoadBalancer', 'NodePort'])(
    '%s without webConfig: NOTES warns that /metrics is open',
    async (type) => {
      expect(await notesFor({ service: { type } })).toContain(
        `WARNING: service.type is ${type} and webConfig is off`,
      );
    },
  );

  it('LoadBalancer with TLS but no basic auth: NOTES warns; with basic auth, or ClusterIP: no warning', async () => {
    const tls = { enabled: true, content: { tls_server_config: { cert_file: 'c', key_file: 'k' } } };
    expect(await notesFor({ service: { type: 'LoadBalancer' }, webConfig: tls })).toContain(
      'webConfig has no basic_auth_users',
    );
    const auth = { ...tls, content: { ...tls.content, basic_auth_users: { p: '$2y$10$x' } } };
    expect(await notesFor({ service: { type: 'LoadBalancer' }, webConfig: auth })).not.toContain('WARNING');
    expect(await notesFor({})).not.toContain('WARNING');
  });
});
