import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The glibc malloc variables whose worth the bench weighs: the image may set them (Dockerfile). */
const ALLOCATOR_VARIABLES = ['GLIBC_TUNABLES', 'MALLOC_ARENA_MAX'] as const;

/** The allocator tuning measured when the image sets none: what it shipped until it was dropped. */
const TUNING_NOT_SHIPPED: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=16384',
  MALLOC_ARENA_MAX: '1',
};

/** An environment the exporter is measured in beside the default one. */
export interface AllocatorEnv {
  /** Whether the image ships it (the Dockerfile's runtime ENV sets these variables). */
  readonly shipped: boolean;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * The image's allocator environment as the Dockerfile's runtime stage sets it, so that the bench
 * weighs what ships; when it sets none, the tuning it used to ship, to show what the default gives up.
 */
export function imageAllocatorEnv(root: string): AllocatorEnv {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  // The runtime stage's instructions, its comments left out (they quote the variables too).
  const runtime = dockerfile
    .slice(dockerfile.lastIndexOf('\nFROM '))
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  const env: Record<string, string> = {};
  for (const name of ALLOCATOR_VARIABLES) {
    const match = new RegExp(`\\b${name}=(\\S+)`).exec(runtime);
    if (match?.[1] !== undefined) env[name] = match[1];
  }
  return Object.keys(env).length > 0 ? { shipped: true, env } : { shipped: false, env: TUNING_NOT_SHIPPED };
}
