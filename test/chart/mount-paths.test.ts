import { describe, expect, it } from 'vitest';
import { refusal, renderValues, withToken } from './helm.js';

// extraVolumeMounts were compared with the chart's own mounts (and with each other) as text, so
// `//tmp` or `/etc/upstash-exporter/./config` rendered, and once the runtime cleaned the path the extra
// volume hid the chart's files. The chart compares them as paths (`//`, `/./`, `/../` and a trailing `/`
// resolved), as it does secret.mountPath (secret-mount.test.ts).

const render = (values: Record<string, unknown>) => renderValues({ ...withToken, ...values });

describe('extra mounts compared as paths', () => {
  it.each([
    ['/etc/upstash-exporter//config', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter/./config', '/etc/upstash-exporter/config'],
    ['/etc/upstash-exporter/web/../config/', '/etc/upstash-exporter/config'],
    ['//tmp', '/tmp'],
    ['/var/../tmp/cache', '/tmp'],
  ])('a mount at a chart path in another spelling (%s) fails as a path', async (mountPath, taken) => {
    const message = await refusal(
      render({
        extraVolumes: [{ name: 'extra', emptyDir: {} }],
        extraVolumeMounts: [{ name: 'extra', mountPath }],
      }),
    );
    expect(message).toMatch(new RegExp(`extraVolumeMounts\\[0\\]: \\S+ is already mounted at ${taken}`));
  });

  it('two extra mounts at one path, spelled apart, fail; a relative one is refused', async () => {
    const volumes = [
      { name: 'a', emptyDir: {} },
      { name: 'b', emptyDir: {} },
    ];
    const mounts = [
      { name: 'a', mountPath: '/data' },
      { name: 'b', mountPath: '/data//./' },
    ];
    expect(await refusal(render({ extraVolumes: volumes, extraVolumeMounts: mounts }))).toContain(
      'extraVolumeMounts[1]: /data is already mounted at /data',
    );
    expect(
      await refusal(render({ extraVolumes: volumes, extraVolumeMounts: [{ name: 'a', mountPath: 'data' }] })),
    ).toContain('mountPath');
  });
});
