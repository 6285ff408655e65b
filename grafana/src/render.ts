// The committed files as the code makes them: the SDK's JSON, formatted as prettier formats the
// repository (so that `prettier --check` and the golden test agree on every byte).
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { build, type Spec } from './dashboard.js';
import { platform } from './platform.js';
import { upstash } from './upstash.js';

/** Where the dashboards are committed: what users import, the chart's ConfigMap and Compose read. */
export const DASHBOARDS_DIR = new URL('../dashboards/', import.meta.url);

export const DASHBOARDS: Readonly<Record<string, Spec>> = {
  'upstash.json': upstash,
  'upstash-platform.json': platform,
};

/** One dashboard file's text. */
export async function render(file: string, spec: Spec): Promise<string> {
  const path = fileURLToPath(new URL(file, DASHBOARDS_DIR));
  const options = (await resolveConfig(path)) ?? {};
  return format(JSON.stringify(build(spec), null, 2), { ...options, filepath: path });
}
