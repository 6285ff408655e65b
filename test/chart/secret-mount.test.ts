import { describe, expect, it } from 'vitest';
import { one, podSpec, refusal, renderValues, validate, withToken } from './helm.js';

// secret.mountPath on a path the chart mounts itself rendered a pod with a duplicate mountPath, which the
// API server refuses at apply time; the chart now refuses it at render time and says what to use.

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

  it('a directory of its own renders, mounted once', async () => {
    const deployment = one(await at('/var/run/upstash'), 'Deployment');
    const mounts = podSpec(deployment).containers[0]!.volumeMounts ?? [];
    const paths = mounts.map((mount) => mount.mountPath);
    expect(paths).toContain('/var/run/upstash');
    expect(new Set(paths).size).toBe(paths.length);
    await validate(deployment);
  });
});
