import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';

const run = promisify(execFile);

export const ROOT = resolve(import.meta.dirname, '../..');
export const CHART = join(ROOT, 'charts/upstash-exporter');
/** The release name the tests render with: pods of the StatefulSet are `upstash-exporter-N`. */
export const RELEASE = 'upstash-exporter';
export const NAMESPACE = 'monitoring';
/** A made-up QStash token: the tests give one so that the chart renders a complete exporter. */
export const CI_QSTASH_TOKEN = 'ci-qstash-token-not-real';
export const withToken = { secret: { data: { 'qstash-token': CI_QSTASH_TOKEN } } };

/** The tools scripts/chart-test.sh installs; a missing one fails the run (never a silent skip). */
export function tools(): { helm: string; modules: string } {
  const helm = process.env.HELM;
  const dir = process.env.CHART_TOOLS;
  if (
    helm === undefined ||
    dir === undefined ||
    !existsSync(helm) ||
    !existsSync(join(dir, 'node_modules'))
  ) {
    throw new Error('HELM and CHART_TOOLS are not set or missing: run `bash scripts/chart-test.sh`');
  }
  return { helm, modules: join(dir, 'node_modules') };
}

/** Runs helm; resolves with its output, or rejects with its stderr as the message. */
export async function helm(...args: string[]): Promise<string> {
  const binary = tools().helm;
  try {
    const { stdout } = await run(binary, args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(
      `helm ${args.join(' ')} failed:\n${stderr === undefined || stderr === '' ? message : stderr}`,
    );
  }
}

/** The NOTES helm prints for an install (a client-side dry run) with these arguments. */
export async function notes(...args: string[]): Promise<string> {
  const out = await helm('install', RELEASE, CHART, '--dry-run=client', '--namespace', NAMESPACE, ...args);
  return out.slice(out.indexOf('NOTES:'));
}

/** The parts of a Kubernetes object the tests look at; the models validate the rest. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

/** A probe as rendered: the chart's handler or the user's, and the timing fields. */
export interface Probe {
  httpGet?: { path: string; port: string; scheme: string; httpHeaders?: unknown[] };
  tcpSocket?: { port: string | number };
  exec?: { command: string[] };
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: EnvVar[];
  envFrom?: unknown[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    privileged?: boolean;
    runAsUser?: number;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  automountServiceAccountToken?: boolean;
  containers: Container[];
  initContainers?: Container[];
  imagePullSecrets?: { name: string }[];
  hostUsers?: boolean;
  dnsPolicy?: string;
  dnsConfig?: Record<string, unknown>;
  tolerations?: Record<string, unknown>[];
  topologySpreadConstraints?: Record<string, unknown>[];
  volumes?: {
    name: string;
    secret?: { secretName: string; defaultMode?: number };
    configMap?: { name: string };
  }[];
}

export interface RenderOptions {
  files?: string[];
  set?: string[];
  setString?: string[];
  chart?: string;
  release?: string;
  namespace?: string;
}

/** `helm template` of the chart with these values files and `--set` pairs, parsed into objects. */
export async function render(options: RenderOptions = {}): Promise<K8sObject[]> {
  const args = [
    'template',
    options.release ?? RELEASE,
    options.chart ?? CHART,
    '--namespace',
    options.namespace ?? NAMESPACE,
  ];
  for (const file of options.files ?? []) args.push('-f', file);
  for (const pair of options.set ?? []) args.push('--set', pair);
  for (const pair of options.setString ?? []) args.push('--set-string', pair);
  return parseObjects(await helm(...args));
}

/** Renders these values (written to a file) over the defaults. */
export async function renderValues(
  values: Record<string, unknown>,
  options: RenderOptions = {},
): Promise<K8sObject[]> {
  return render({ ...options, files: [...(options.files ?? []), await valuesFile(values)] });
}

/** The message of the failed rendering; throws when it rendered. */
export async function refusal(rendering: Promise<unknown>): Promise<string> {
  return rendering.then(
    () => {
      throw new Error('rendered, but should have failed');
    },
    (error: unknown) => (error as Error).message,
  );
}

/** Every non-empty document of a multi-document YAML stream. */
export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0)
        throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message ?? ''}`);
      return doc.toJS() as unknown;
    })
    .filter((obj): obj is K8sObject => obj !== null && obj !== undefined);
}

/** Writes values to a throwaway file, for values `--set` cannot express (lists of objects). */
export async function valuesFile(values: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chart-values-'));
  const file = join(dir, 'values.yaml');
  await writeFile(file, stringify(values));
  return file;
}

/** Writes values text as it is, for what a YAML writer would not produce (a 23-digit number). */
export async function rawValuesFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chart-values-'));
  const file = join(dir, 'values.yaml');
  await writeFile(file, text);
  return file;
}

type Model = new (data: unknown) => { validate(): void };

/** Where kubernetes-models keeps the class of an apiVersion and kind. */
function modelPath(modules: string, apiVersion: string, kind: string): string {
  const pkg = apiVersion.startsWith('monitoring.coreos.com/')
    ? '@kubernetes-models/prometheus-operator'
    : 'kubernetes-models';
  return join(modules, pkg, apiVersion, `${kind}.mjs`);
}

/** Validates an object against the schema of its apiVersion and kind; throws naming it on a problem. */
export async function validate(obj: K8sObject): Promise<void> {
  const file = modelPath(tools().modules, obj.apiVersion, obj.kind);
  if (!existsSync(file)) throw new Error(`no model for ${obj.apiVersion} ${obj.kind} (${file})`);
  const module = (await import(pathToFileURL(file).href)) as Record<string, Model | undefined>;
  const Class = module[obj.kind];
  if (Class === undefined) throw new Error(`${file} exports no ${obj.kind}`);
  try {
    new Class(obj).validate();
  } catch (error) {
    throw new Error(`${obj.kind} ${obj.metadata.name} is invalid: ${(error as Error).message}`);
  }
}

/** The objects of one kind. */
export function ofKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((obj) => obj.kind === kind);
}

/** The single object of a kind; throws when there is none or more than one. */
export function one(objects: K8sObject[], kind: string): K8sObject {
  const found = ofKind(objects, kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0]!;
}

/** The pod spec of a Deployment or StatefulSet. */
export function podSpec(workload: K8sObject): PodSpec {
  return (workload.spec as { template: { spec: PodSpec } }).template.spec;
}

/** Every workload (Deployment, StatefulSet) of a rendering. */
export function workloads(objects: K8sObject[]): K8sObject[] {
  return objects.filter((obj) => obj.kind === 'Deployment' || obj.kind === 'StatefulSet');
}

/** `--flag=value` and `--flag value` alike: the value of a flag, or undefined. */
export function flag(args: string[], name: string): string | undefined {
  for (const [i, arg] of args.entries()) {
    if (arg === name) return args[i + 1];
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
  }
  return undefined;
}

/** The pod template (metadata and spec) of a Deployment or StatefulSet, as Pod Security sees it. */
export function podTemplate(workload: K8sObject): unknown {
  return (workload.spec as { template: unknown }).template;
}
