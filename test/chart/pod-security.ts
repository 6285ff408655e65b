// The Pod Security Standards of Kubernetes 1.34, baseline and restricted, as the documentation lists them
// (https://kubernetes.io/docs/concepts/security/pod-security-standards/): every control, its restricted
// fields and allowed values, checked over a pod template. No cluster and no network tool is available
// where the chart is tested, so this module is the admission controller's stand-in; its own test shows
// that each control catches what it should.

export type Level = 'baseline' | 'restricted';

interface Handler {
  httpGet?: { host?: string };
  tcpSocket?: { host?: string };
}

interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  procMount?: string;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
  appArmorProfile?: { type?: string };
  seLinuxOptions?: { type?: string; user?: string; role?: string; level?: string };
  windowsOptions?: { hostProcess?: boolean };
}

interface PodContainer {
  name: string;
  securityContext?: SecurityContext;
  ports?: { hostPort?: number }[];
  livenessProbe?: Handler;
  readinessProbe?: Handler;
  startupProbe?: Handler;
  lifecycle?: { postStart?: Handler; preStop?: Handler };
}

/** The parts of a pod template the standards look at. */
export interface PodTemplate {
  metadata?: { annotations?: Record<string, string> };
  spec: {
    hostNetwork?: boolean;
    hostPID?: boolean;
    hostIPC?: boolean;
    securityContext?: SecurityContext & { sysctls?: { name: string }[] };
    containers: PodContainer[];
    initContainers?: PodContainer[];
    ephemeralContainers?: PodContainer[];
    volumes?: Record<string, unknown>[];
  };
}

/** Baseline's Capabilities control: the container runtimes' default set. */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
/** Baseline's Sysctls control, as of 1.29 (the keepalive and fin_timeout ones added then). */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
/** Restricted's Volume Types control. */
const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const SECCOMP = new Set(['RuntimeDefault', 'Localhost']);

/** Every container of the pod with the field path it has in the spec. */
function containersOf(spec: PodTemplate['spec']): [string, PodContainer][] {
  return (['containers', 'initContainers', 'ephemeralContainers'] as const).flatMap((kind) =>
    (spec[kind] ?? []).map((c, i): [string, PodContainer] => [`spec.${kind}[${i}]`, c]),
  );
}

/** The controls of baseline; every message names the field. */
function baseline(pod: PodTemplate): string[] {
  const { spec } = pod;
  const found: string[] = [];
  const contexts: [string, SecurityContext | undefined][] = [
    ['spec.securityContext', spec.securityContext],
    ...containersOf(spec).map(([at, c]): [string, SecurityContext | undefined] => [
      `${at}.securityContext`,
      c.securityContext,
    ]),
  ];
  // HostProcess; AppArmor; SELinux; Seccomp: the same fields at pod and container level.
  for (const [at, context] of contexts) {
    if (context?.windowsOptions?.hostProcess === true) found.push(`HostProcess: ${at}.windowsOptions`);
    const armor = context?.appArmorProfile?.type;
    if (armor !== undefined && armor !== 'RuntimeDefault' && armor !== 'Localhost')
      found.push(`AppArmor: ${at}.appArmorProfile.type ${armor}`);
    const selinux = context?.seLinuxOptions;
    if (selinux?.type !== undefined && selinux.type !== '' && !SELINUX_TYPES.has(selinux.type))
      found.push(`SELinux: ${at}.seLinuxOptions.type ${selinux.type}`);
    for (const key of ['user', 'role'] as const)
      if ((selinux?.[key] ?? '') !== '') found.push(`SELinux: ${at}.seLinuxOptions.${key}`);
    const seccomp = context?.seccompProfile?.type;
    if (seccomp !== undefined && !SECCOMP.has(seccomp))
      found.push(`Seccomp: ${at}.seccompProfile.type ${seccomp}`);
  }
  // Host Namespaces.
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC'] as const)
    if (spec[key] === true) found.push(`Host Namespaces: spec.${key}`);
  for (const [at, c] of containersOf(spec)) {
    const context = c.securityContext;
    // Privileged Containers; Capabilities; /proc Mount Type.
    if (context?.privileged === true) found.push(`Privileged Containers: ${at}`);
    for (const capability of context?.capabilities?.add ?? [])
      if (!BASELINE_CAPABILITIES.has(capability)) found.push(`Capabilities: ${at} adds ${capability}`);
    if (context?.procMount !== undefined && context.procMount !== 'Default')
      found.push(`/proc Mount Type: ${at} ${context.procMount}`);
    // Host Ports.
    for (const [j, port] of (c.ports ?? []).entries())
      if ((port.hostPort ?? 0) !== 0) found.push(`Host Ports: ${at}.ports[${j}].hostPort`);
    // Host Probes / Lifecycle Hooks (1.34).
    const handlers: [string, Handler | undefined][] = [
      ['livenessProbe', c.livenessProbe],
      ['readinessProbe', c.readinessProbe],
      ['startupProbe', c.startupProbe],
      ['lifecycle.postStart', c.lifecycle?.postStart],
      ['lifecycle.preStop', c.lifecycle?.preStop],
    ];
    for (const [name, handler] of handlers)
      for (const kind of ['httpGet', 'tcpSocket'] as const)
        if ((handler?.[kind]?.host ?? '') !== '')
          found.push(`Host Probes / Lifecycle Hooks: ${at}.${name}.${kind}.host`);
  }
  // HostPath Volumes.
  for (const [i, volume] of (spec.volumes ?? []).entries())
    if ('hostPath' in volume) found.push(`HostPath Volumes: spec.volumes[${i}]`);
  // AppArmor, the annotation form.
  for (const [key, value] of Object.entries(pod.metadata?.annotations ?? {}))
    if (
      key.startsWith('container.apparmor.security.beta.kubernetes.io/') &&
      value !== 'runtime/default' &&
      !value.startsWith('localhost/')
    )
      found.push(`AppArmor: metadata.annotations[${key}] ${value}`);
  // Sysctls.
  for (const [i, sysctl] of (spec.securityContext?.sysctls ?? []).entries())
    if (!SAFE_SYSCTLS.has(sysctl.name))
      found.push(`Sysctls: spec.securityContext.sysctls[${i}] ${sysctl.name}`);
  return found;
}

/** The controls restricted adds to baseline. */
function restricted(pod: PodTemplate): string[] {
  const { spec } = pod;
  const found: string[] = [];
  for (const [i, volume] of (spec.volumes ?? []).entries()) {
    const types = Object.keys(volume).filter((key) => key !== 'name');
    for (const type of types)
      if (!RESTRICTED_VOLUMES.has(type)) found.push(`Volume Types: spec.volumes[${i}].${type}`);
  }
  const podContext = spec.securityContext;
  if (podContext?.runAsUser === 0) found.push('Running as Non-root user: spec.securityContext.runAsUser');
  for (const [at, c] of containersOf(spec)) {
    const context = c.securityContext;
    if (context?.allowPrivilegeEscalation !== false) found.push(`Privilege Escalation: ${at}`);
    // Running as Non-root: true at pod level with no container saying false, or true in the container.
    const nonRoot = context?.runAsNonRoot ?? podContext?.runAsNonRoot;
    if (nonRoot !== true) found.push(`Running as Non-root: ${at}`);
    if (context?.runAsUser === 0) found.push(`Running as Non-root user: ${at}.securityContext.runAsUser`);
    // Seccomp: set at pod level (RuntimeDefault or Localhost) or in every container.
    const seccomp = context?.seccompProfile?.type ?? podContext?.seccompProfile?.type;
    if (seccomp === undefined || !SECCOMP.has(seccomp)) found.push(`Seccomp: ${at}`);
    const capabilities = context?.capabilities;
    if (!(capabilities?.drop ?? []).includes('ALL')) found.push(`Capabilities: ${at} drops not ALL`);
    for (const capability of capabilities?.add ?? [])
      if (capability !== 'NET_BIND_SERVICE') found.push(`Capabilities: ${at} adds ${capability}`);
  }
  return found;
}

/** What the pod breaks of a Pod Security Standard (restricted includes baseline): empty when it passes. */
export function podSecurityViolations(pod: PodTemplate, level: Level): string[] {
  return level === 'baseline' ? baseline(pod) : [...baseline(pod), ...restricted(pod)];
}
