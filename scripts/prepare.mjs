// npm's `prepare` script: builds dist/ after `npm ci` or `npm install` in a checkout, and in the checkout
// that `npm install -g .` links into the global folder. A global install leaves the dev dependencies
// out, the TypeScript compiler with them, so this installs them into the checkout first (building from
// source needs the compiler; the npm package, `npm pack`'s tarball, ships dist/ and needs none of this).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.env.npm_execpath;

function run(args, env = process.env) {
  // npm_execpath is npm's own CLI script: the npm that runs this script, whatever PATH says.
  const [command, argv] = npm === undefined ? ['npm', args] : [process.execPath, [npm, ...args]];
  const result = spawnSync(command, argv, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(new URL('../node_modules/typescript/bin/tsc', import.meta.url))) {
  console.error(
    'prepare: the TypeScript compiler is not installed here; installing the dev dependencies to build dist/',
  );
  // Without the outer command's settings: `npm install -g .` would make this install global too.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key)));
  run(['install', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save'], env);
}
run(['run', 'build']);
