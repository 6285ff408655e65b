import { describe, expect, it } from 'vitest';
import { one, podSpec, refusal, renderValues, validate, withToken } from './helm.js';

// secret.mountPath on a path the chart mounts itself rendered a pod with a duplicate mountPath, which the
// API server refuses at apply time; the chart now refuses it at render time and says what to use. The
// paths are compared as the container runtime reads them (`//`, `/./`, `/../` and a trailing `/`
// resolved), for secret.mountPath and extraVolumeMounts alike: a spelling cannot slip past.

const at = (mountPath: string) => renderValues({ secret: { ...withToken.secret, mountPath } });

describe('secret.mountPath', () => {
  it.each([
    ['/tmp', '/tmp'],
    ['/tmp/', '/tmp'],
    ['/etc/upstash-exporter/config', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter/web', '/etc/upstash-exporter/web'],
    ['/etc/upstash-exporter/tls', '/etc/upstash-exporter/tls'],
    ['/etc/upstash-exporter/config/secrets', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter', '/etc/upstash-exporter/config'],
  ])('%s fails, names the mount it collides with and what to use', async (path, taken) => {
    const message = await refusal(at(path));
    expect(message).toContain(`secret.mountPath: ${path} collides with ${taken}`);
    expect(message).toContain('use a directory of its own, like the default /etc/upstash-exporter/secrets');
  });

  it.each([
    ['/etc/upstash-exporter//config', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter/./config', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter/secrets/../config', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter/config/.', '/etc/upstash-exporter/config'],
    ['//tmp', '/tmp'],
    ['/var/../tmp/', '/tmp'],
    ['/', '/etc/upstash-exporter/config'],
    ['/etc//upstash-exporter', '/etc/upstash-exporter/config'],
  ])('%s is compared as a path: it fails, naming %s', async (path, taken) => {
    expect(await refusal(at(path))).toContain(`secret.mountPath: ${path} collides with ${taken}`);
  });

  it('a directory of its own in another spelling renders; the extra mounts are compared with it as a path', async () => {
    const values = {
      secret: { ...withToken.secret, mountPath: '/var/run//upstash/' },
      extraVolumes: [{ name: 'extra', emptyDir: {} }],
    };
    await validate(one(await renderValues(values), 'Deployment'));
    const message = await refusal(
      renderValues({ ...values, extraVolumeMounts: [{ name: 'extra', mountPath: '/var/run/upstash/x/..' }] }),
    );
    expect(message).toContain(
      'extraVolumeMounts[0]: /var/run/upstash is already mounted at /var/run/upstash',
    );
  });

  it('a relative path is refused', async () => {
    expect(await refusal(at('etc/upstash-exporter/secrets'))).toMatch(/secret\.mountPath|mountPath/);
  });

  it('a directory of its own renders, mounted once', async () => {
    const deployment = one(await at('/var/run/upstash'), 'Deployment');
    const mounts = podSpec(deployment).containers[0]!.volumeMounts ?? [];
    const paths = mounts.map((mount) => mount.mountPath);
    expect(paths).toContain('/var/run/upstash');
    expect(new Set(paths).size).toBe(paths.length);
    await validate(deployment);
  });
});
