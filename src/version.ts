import { readFileSync } from 'node:fs';

/** The exporter's version, from package.json (one folder above both src/ and dist/). */
export function readVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  const { version } = JSON.parse(text) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
