import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CHART,
  podTemplate,
  refusal,
  render,
  renderValues,
  validate,
  withToken,
  workloads,
  type K8sObject,
} from './helm.js';
import { podSecurityViolations, type Level, type PodTemplate } from './pod-security.js';

// Every pod the chart renders passes the Pod Security Standards (Kubernetes 1.34), baseline and
// restricted; a value that would break one fails the rendering and says what to use instead.

const LEVELS: Level[] = ['baseline', 'restricted'];
const ciFiles = readdirSync(join(CHART, 'ci'))
  .filter((name) => name.endsWith('-values.yaml'))
  .sort();

/** Every workload's pod template, each object validated by its model first. */
async function pods(objects: K8sObject[]): Promise<PodTemplate[]> {
  for (const obj of objects) await validate(obj);
  const found = workloads(objects).map((w) => podTemplate(w) as PodTemplate);
  expect(found.length).toBeGreaterThan(0);
  return found;
}

async function expectPasses(objects: K8sObject[]): Promise<void> {
  for (const pod of await pods(objects))
    for (const level of LEVELS) expect(podSecurityViolations(pod, level), level).toEqual([]);
}

describe('the Pod Security check itself', () => {
  const hardened = (): PodTemplate => ({
    spec: {
      securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'c',
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        },
      ],
      volumes: [{ name: 'v', emptyDir: {} }],
    },
  });
  const container = (pod: PodTemplate) => pod.spec.containers[0]!;

  it('passes a hardened pod at both levels', () => {
    for (const level of LEVELS) expect(podSecurityViolations(hardened(), level)).toEqual([]);
  });

  it.each<[string, Level, (pod: PodTemplate) => void]>([
    ['HostProcess', 'baseline', (p) => (p.spec.securityContext!.windowsOptions = { hostProcess: true })],
    ['Host Namespaces', 'baseline', (p) => (p.spec.hostPID = true)],
    ['Privileged Containers', 'baseline', (p) => (container(p).securityContext!.privileged = true)],
    ['Capabilities', 'baseline', (p) => (container(p).securityContext!.capabilities!.add = ['NET_RAW'])],
    ['HostPath Volumes', 'baseline', (p) => p.spec.volumes!.push({ name: 'h', hostPath: { path: '/' } })],
    ['Host Ports', 'baseline', (p) => (container(p).ports = [{ hostPort: 9645 }])],
    [
      'Host Probes / Lifecycle Hooks',
      'baseline',
      (p) => (container(p).readinessProbe = { httpGet: { host: '169.254.169.254' } }),
    ],
    [
      'Host Probes / Lifecycle Hooks',
      'baseline',
      (p) => (container(p).lifecycle = { preStop: { tcpSocket: { host: '10.0.0.1' } } }),
    ],
    ['AppArmor', 'baseline', (p) => (container(p).securityContext!.appArmorProfile = { type: 'Unconfined' })],
    [
      'AppArmor',
      'baseline',
      (p) =>
        (p.metadata = { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' } }),
    ],
    ['SELinux', 'baseline', (p) => (p.spec.securityContext!.seLinuxOptions = { type: 'spc_t' })],
    ['SELinux', 'baseline', (p) => (container(p).securityContext!.seLinuxOptions = { user: 'system_u' })],
    ['/proc Mount Type', 'baseline', (p) => (container(p).securityContext!.procMount = 'Unmasked')],
    ['Seccomp', 'baseline', (p) => (container(p).securityContext!.seccompProfile = { type: 'Unconfined' })],
    ['Sysctls', 'baseline', (p) => (p.spec.securityContext!.sysctls = [{ name: 'kernel.msgmax' }])],
    [
      'Volume Types',
      'restricted',
      (p) => p.spec.volumes!.push({ name: 'n', nfs: { server: 'x', path: '/' } }),
    ],
    [
      'Privilege Escalation',
      'restricted',
      (p) => delete container(p).securityContext!.allowPrivilegeEscalation,
    ],
    ['Running as Non-root', 'restricted', (p) => delete p.spec.securityContext!.runAsNonRoot],
    ['Running as Non-root user', 'restricted', (p) => (container(p).securityContext!.runAsUser = 0)],
    ['Seccomp', 'restricted', (p) => delete p.spec.securityContext!.seccompProfile],
    ['Capabilities', 'restricted', (p) => (container(p).securityContext!.capabilities = {})],
    [
      'Capabilities',
      'restricted',
      (p) => (container(p).securityContext!.capabilities = { drop: ['ALL'], add: ['CHOWN'] }),
    ],
  ])('catches %s (%s)', (control, level, mutate) => {
    const pod = hardened();
    mutate(pod);
    expect(podSecurityViolations(pod, level).join('\n')).toContain(`${control}:`);
    // What only restricted forbids passes baseline.
    if (level === 'restricted') expect(podSecurityViolations(pod, 'baseline')).toEqual([]);
  });
});

describe.each([['defaults', []], ...ciFiles.map((name) => [`ci/${name}`, [join(CHART, 'ci', name)]])])(
  '%s: every pod passes Pod Security baseline and restricted',
  (_variant, files) => {
    it('renders pods with no violation at either level', async () => {
      await expectPasses(await render({ files: files as string[] }));
    });
  },
);

describe('values that would break Pod Security baseline fail and say what to use', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'AppArmor Unconfined for the pod',
      { podSecurityContext: { runAsUser: 1000, appArmorProfile: { type: 'Unconfined' } } },
      'podSecurityContext.appArmorProfile.type: Unconfined turns AppArmor off',
    ],
    [
      'AppArmor Unconfined for the container',
      { securityContext: { appArmorProfile: { type: 'Unconfined' } } },
      'securityContext.appArmorProfile.type: Unconfined turns AppArmor off',
    ],
    [
      'the AppArmor annotation unconfined',
      { podAnnotations: { 'container.apparmor.security.beta.kubernetes.io/exporter': 'unconfined' } },
      'use runtime/default or localhost/<profile>',
    ],
    [
      'SELinux type spc_t for the pod',
      { podSecurityContext: { runAsUser: 1000, seLinuxOptions: { type: 'spc_t' } } },
      'podSecurityContext.seLinuxOptions.type: spc_t is not one of the container types',
    ],
    [
      'SELinux type unconfined_t for the container',
      { securityContext: { seLinuxOptions: { type: 'unconfined_t' } } },
      'securityContext.seLinuxOptions.type: unconfined_t is not one of the container types',
    ],
    [
      'an SELinux user',
      { securityContext: { seLinuxOptions: { user: 'system_u' } } },
      'securityContext.seLinuxOptions.user: Pod Security baseline forbids',
    ],
    [
      'an SELinux role',
      { podSecurityContext: { runAsUser: 1000, seLinuxOptions: { role: 'system_r' } } },
      'podSecurityContext.seLinuxOptions.role',
    ],
    [
      'an unsafe sysctl',
      { podSecurityContext: { runAsUser: 1000, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] } },
      'podSecurityContext.sysctls[0] (net.core.somaxconn): not one of the safe sysctls',
    ],
    [
      'a liveness probe with httpGet.host',
      { livenessProbe: { httpGet: { path: '/healthz', port: 'http', host: '169.254.169.254' } } },
      'livenessProbe.httpGet.host: the kubelet would connect to that address',
    ],
    [
      'a readiness probe with tcpSocket.host',
      { readinessProbe: { tcpSocket: { port: 9645, host: '10.0.0.1' } } },
      'readinessProbe.tcpSocket.host',
    ],
    [
      'a hostPath volume',
      { extraVolumes: [{ name: 'host', hostPath: { path: '/var/run' } }] },
      "extraVolumes[0] (host): hostPath mounts the node's filesystem",
    ],
    [
      'an nfs volume (restricted)',
      { extraVolumes: [{ name: 'share', nfs: { server: 'nfs', path: '/' } }] },
      'extraVolumes[0] (share): a nfs volume is not allowed by Pod Security restricted',
    ],
  ])('%s', async (_what, values, message) => {
    expect(await refusal(renderValues({ ...withToken, ...values }))).toContain(message);
  });

  it('the allowed values render, and pass both levels', async () => {
    const objects = await renderValues({
      ...withToken,
      podAnnotations: { 'container.apparmor.security.beta.kubernetes.io/exporter': 'runtime/default' },
      podSecurityContext: {
        runAsUser: 1000,
        appArmorProfile: { type: 'Localhost', localhostProfile: 'exporter' },
        seLinuxOptions: { type: 'container_init_t', level: 's0:c1,c2' },
        sysctls: [{ name: 'net.ipv4.tcp_keepalive_time', value: '60' }],
      },
      securityContext: { seLinuxOptions: { type: 'container_t' } },
      extraVolumes: [{ name: 'cache', emptyDir: {} }],
    });
    await expectPasses(objects);
  });

  it('hostUsers: false (opt-in) puts the pod in a user namespace', async () => {
    const [pod] = await pods(await renderValues({ ...withToken, hostUsers: false }));
    expect((pod!.spec as { hostUsers?: boolean }).hostUsers).toBe(false);
    const [plain] = await pods(await renderValues(withToken));
    expect('hostUsers' in plain!.spec).toBe(false);
  });
});

describe('extra containers and init containers are held to the same checks', () => {
  const sidecar = { name: 'sidecar', image: 'busybox:1.37' };
  it.each<[string, Record<string, unknown>, string]>([
    [
      'privileged',
      { securityContext: { privileged: true } },
      'extraContainers[0].securityContext.privileged',
    ],
    [
      'allowPrivilegeEscalation',
      { securityContext: { allowPrivilegeEscalation: true } },
      'extraContainers[0].securityContext.allowPrivilegeEscalation: must be false',
    ],
    [
      'root',
      { securityContext: { runAsUser: 0 } },
      'extraContainers[0].securityContext.runAsUser: 0 is root',
    ],
    [
      'an added capability',
      { securityContext: { capabilities: { add: ['NET_ADMIN'] } } },
      'extraContainers[0].securityContext.capabilities.add: NET_ADMIN',
    ],
    [
      'AppArmor Unconfined',
      { securityContext: { appArmorProfile: { type: 'Unconfined' } } },
      'extraContainers[0].securityContext.appArmorProfile.type',
    ],
    [
      'a host port',
      { ports: [{ containerPort: 8080, hostPort: 8080 }] },
      'extraContainers[0].ports[0].hostPort',
    ],
    [
      'a probe with host',
      { livenessProbe: { httpGet: { port: 8080, host: '10.0.0.1' } } },
      'extraContainers[0].livenessProbe.httpGet.host',
    ],
    [
      'a lifecycle hook with host',
      { lifecycle: { preStop: { httpGet: { port: 8080, host: '10.0.0.1' } } } },
      'extraContainers[0].lifecycle.preStop.httpGet.host',
    ],
    [
      'a mount of no volume',
      { volumeMounts: [{ name: 'nowhere', mountPath: '/x' }] },
      'extraContainers[0].volumeMounts[0]: no volume is named nowhere',
    ],
  ])('%s fails', async (_what, fields, message) => {
    const values = { ...withToken, extraContainers: [{ ...sidecar, ...fields }] };
    expect(await refusal(renderValues(values))).toContain(message);
  });

  it('an init container is checked the same way', async () => {
    const values = {
      ...withToken,
      extraInitContainers: [{ ...sidecar, securityContext: { privileged: true } }],
    };
    expect(await refusal(renderValues(values))).toContain(
      'extraInitContainers[0].securityContext.privileged',
    );
  });

  it('a name taken by the exporter or another container fails', async () => {
    expect(
      await refusal(renderValues({ ...withToken, extraContainers: [{ ...sidecar, name: 'exporter' }] })),
    ).toContain('extraContainers[0]: the container name exporter is taken');
    const twice = { ...withToken, extraInitContainers: [sidecar], extraContainers: [sidecar] };
    expect(await refusal(renderValues(twice))).toContain(
      'extraContainers[0]: the container name sidecar is taken',
    );
  });

  it('are rendered hardened, in order, and pass both levels', async () => {
    const objects = await renderValues({
      ...withToken,
      extraInitContainers: [{ ...sidecar, name: 'init' }],
      extraContainers: [
        { ...sidecar, volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }] },
        { ...sidecar, name: 'writer', securityContext: { readOnlyRootFilesystem: false } },
      ],
    });
    const [pod] = await pods(objects);
    const spec = pod!.spec;
    expect(spec.initContainers?.map((c) => c.name)).toEqual(['init']);
    expect(spec.containers.map((c) => c.name)).toEqual(['exporter', 'sidecar', 'writer']);
    expect(spec.containers[1]!.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(
      (spec.containers[2]!.securityContext as { readOnlyRootFilesystem?: boolean }).readOnlyRootFilesystem,
    ).toBe(false);
    await expectPasses(objects);
  });
});
