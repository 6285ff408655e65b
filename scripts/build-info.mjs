// Writes dist/build-info.json, the revision `--version` and upstash_exporter_build_info show
// (src/version.ts reads it; the version itself is read from package.json at run time).
//   BUILD_REVISION set (the Dockerfile's REVISION argument, a CI variable): that.
//   Else, in this project's own git work tree: HEAD, with "-modified" when tracked files differ from it,
//   as Prometheus' exporters say of a build from a changed tree.
//   Else (a tarball, a folder without .git, a checkout inside another project's tree): "unknown".
// With --print it prints the revision instead (scripts/image-build-args.sh labels the image with it).
import { execFileSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function git(...args) {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

function revision() {
  const given = process.env.BUILD_REVISION?.trim();
  if (given) return given;
  try {
    // Only this project's own repository: a copy unpacked inside another one must not take its HEAD.
    if (realpathSync(git('rev-parse', '--show-toplevel')) !== realpathSync(root)) return 'unknown';
    const head = git('rev-parse', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head}-modified`;
  } catch {
    return 'unknown'; // no git, or not a work tree
  }
}

if (process.argv.includes('--print')) process.stdout.write(`${revision()}\n`);
else
  writeFileSync(
    new URL('../dist/build-info.json', import.meta.url),
    `${JSON.stringify({ revision: revision() })}\n`,
  );
