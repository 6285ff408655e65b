import { readFileSync } from 'node:fs';

/** Which build of the exporter runs: what `--version`, build_info and the landing page say. */
export interface BuildInfo {
  /** package.json's version, the one source of every version the project shows. */
  readonly version: string;
  /** The git commit it was built from (`-modified` when the tree had changes), or `unknown`. */
  readonly revision: string;
}

/**
 * The build info: the version from package.json (one folder above both src/ and dist/, and always in
 * the npm package), the revision from the `build-info.json` that `npm run build` writes beside the
 * compiled modules (scripts/build-info.mjs). Run from src/, or built without git, it is `unknown`, as
 * Prometheus' own exporters leave a revision they were not given.
 */
export function readBuildInfo(): BuildInfo {
  const pkg = readJson(new URL('../package.json', import.meta.url));
  const built = readJson(new URL('./build-info.json', import.meta.url));
  return { version: stringField(pkg, 'version'), revision: stringField(built, 'revision') };
}

/** `--version`'s text, in the shape of Prometheus' version.Print (prometheus/common). */
export function versionText(build: BuildInfo): string {
  return [
    `upstash-exporter, version ${build.version} (revision: ${build.revision})`,
    `  node version:     ${process.version}`,
    `  platform:         ${process.platform}/${process.arch}`,
    '',
  ].join('\n');
}

function readJson(url: URL): unknown {
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function stringField(value: unknown, key: string): string {
  const field = (value as Record<string, unknown> | undefined)?.[key];
  return typeof field === 'string' && field !== '' ? field : 'unknown';
}
