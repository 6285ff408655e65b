import { describe, expect, it } from 'vitest';
import { RELEASE, ofKind, one, renderValues, validate, withToken, type K8sObject } from './helm.js';

// `helm upgrade` between shard counts. Helm patches every object kept under the same kind and
// name, and the API server refuses a patch of an immutable field; the objects of two revisions rendered
// with different shard counts must agree on each of those fields. (No cluster is available here: the
// fields are those the API server's validation marks immutable for these kinds.)

const revision = (shards: number, release = RELEASE) =>
  renderValues({ ...withToken, sharding: { shards } }, { release });

/** The immutable fields of an object that helm would patch (same kind and name in both revisions). */
function immutable(obj: K8sObject): Record<string, unknown> {
  const spec = obj.spec ?? {};
  switch (obj.kind) {
    case 'Service':
      // clusterIP cannot change once set, nor can a Service become headless or stop being one.
      return { clusterIP: spec.clusterIP ?? '(allocated)', clusterIPs: spec.clusterIPs };
    case 'Deployment':
      return { selector: spec.selector };
    case 'StatefulSet':
      return {
        selector: spec.selector,
        serviceName: spec.serviceName,
        podManagementPolicy: spec.podManagementPolicy,
        volumeClaimTemplates: spec.volumeClaimTemplates,
      };
    default:
      return {};
  }
}

/** Every object both revisions hold whose immutable fields differ: what `helm upgrade` would fail on. */
function conflicts(before: K8sObject[], after: K8sObject[]): string[] {
  const found: string[] = [];
  for (const old of before) {
    const next = after.find((o) => o.kind === old.kind && o.metadata.name === old.metadata.name);
    if (next === undefined) continue;
    const [a, b] = [JSON.stringify(immutable(old)), JSON.stringify(immutable(next))];
    if (a !== b) found.push(`${old.kind} ${old.metadata.name}: ${a} -> ${b}`);
  }
  return found;
}

describe('helm upgrade between shard counts', () => {
  it('the conflict check sees a Service turning headless (what the chart did before)', () => {
    const service = (clusterIP?: string): K8sObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: clusterIP === undefined ? {} : { clusterIP },
    });
    expect(conflicts([service()], [service('None')])).toEqual([
      'Service s: {"clusterIP":"(allocated)"} -> {"clusterIP":"None"}',
    ]);
  });

  it.each([
    [1, 3],
    [3, 1],
    [2, 5],
    [5, 2],
  ])(
    'from %d shard(s) to %d: the Service keeps its name and cluster IP; nothing immutable changes',
    async (from, to) => {
      const [before, after] = [await revision(from), await revision(to)];
      const [old, next] = [one(before, 'Service'), one(after, 'Service')];
      expect(next.metadata.name).toBe(old.metadata.name);
      expect(next.metadata.name).toBe(RELEASE);
      for (const service of [old, next]) {
        expect(service.spec?.type).toBe('ClusterIP');
        expect(service.spec?.clusterIP).toBeUndefined();
      }
      expect(conflicts(before, after)).toEqual([]);
      for (const obj of after) await validate(obj);
    },
  );

  it('from 1 shard to 3: the Deployment gives way to a StatefulSet governed by the same Service', async () => {
    const [before, after] = [await revision(1), await revision(3)];
    expect(ofKind(before, 'StatefulSet')).toEqual([]);
    expect(ofKind(after, 'Deployment')).toEqual([]);
    expect(one(after, 'StatefulSet').spec?.serviceName).toBe(one(before, 'Service').metadata.name);
  });

  it('a release name longer than 52 characters: the names change with shards, and nothing is patched', async () => {
    // Full names are cut to 52 characters with shards (NOTES and the README say why); objects of another
    // name are created anew and the old ones deleted, which no immutable field stops.
    const release = 'r'.repeat(53);
    const [before, after] = [await revision(1, release), await revision(3, release)];
    expect(one(before, 'Service').metadata.name).not.toBe(one(after, 'Service').metadata.name);
    expect(conflicts(before, after)).toEqual([]);
  });
});
