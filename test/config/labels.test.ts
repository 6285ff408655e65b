import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load.js';
import { summarizeConfig } from '../../src/config/summary.js';
import type { Config } from '../../src/config/types.js';

const CONFIG = '/etc/upstash-exporter/config.yml';

function fromYaml(yaml: string): Config {
  return loadConfig({
    configFile: CONFIG,
    env: {},
    readFile: (path) => {
      if (path !== CONFIG) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return yaml;
    },
  });
}

/** The problems of `yaml` as `path: message` lines; fails when it is accepted. */
function problems(yaml: string): string[] {
  try {
    fromYaml(yaml);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  return expect.unreachable('the configuration was accepted');
}

const entry = (extra: string) => `qstash:\n  - name: eu\n    token: t0ken\n${extra}`;

describe("a qstash entry's labels and exemplars", () => {
  test('an entry without them counts by no label and gives exemplars', () => {
    const [account] = fromYaml(entry('')).qstash;
    expect(account?.labels).toEqual([]);
    expect(account?.exemplars).toBe(true);
  });

  test('the listed values are kept in order, and exemplars can be turned off', () => {
    const [account] = fromYaml(entry('    labels: [billing, "tenant:ß-42"]\n    exemplars: false\n')).qstash;
    expect(account?.labels).toEqual(['billing', 'tenant:ß-42']);
    expect(account?.exemplars).toBe(false);
  });

  test('every bad value is reported at its place, without quoting it', () => {
    const long = 'x'.repeat(65);
    const found = problems(
      entry(`    labels: ["", "${long}", "a,b", "tab\\there", ok, ok, 7]\n    exemplars: sometimes\n`),
    );
    expect(found).toEqual([
      'qstash[0].labels[0]: must be 1 to 64 characters',
      'qstash[0].labels[1]: must be 1 to 64 characters',
      'qstash[0].labels[2]: must not hold a comma (Upstash splits labels at commas)',
      'qstash[0].labels[3]: must not hold a control character',
      'qstash[0].labels[6]: must be a label value (text)',
      'qstash[0].exemplars: must be true or false',
    ]);
    expect(found.join('\n')).not.toContain(long);
    expect(found.join('\n')).not.toContain('tab');
  });

  test('a duplicate and a list of more than 20 are refused; 64 characters and 20 values are not', () => {
    expect(problems(entry('    labels: [a, b, a]\n'))).toEqual([
      'qstash[0].labels[2]: lists a label value twice',
    ]);
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`).join(', ');
    expect(problems(entry(`    labels: [${values(21)}]\n`))).toEqual([
      'qstash[0].labels: must list at most 20 label values',
    ]);
    expect(problems(entry('    labels: billing\n'))).toEqual([
      'qstash[0].labels: must be a list of label values',
    ]);
    const accepted = fromYaml(entry(`    labels: [${values(19)}, "${'é'.repeat(64)}"]\n`));
    expect(accepted.qstash[0]?.labels).toHaveLength(20);
  });

  test('--check-config names the listed values and says when exemplars are off', () => {
    const summary = summarizeConfig(
      fromYaml(entry('    labels: [billing, tenant-a]\n    exemplars: false\n')),
    );
    expect(summary).toMatch(/^qstash eu: .*, labels \[billing, tenant-a\], exemplars off, at least /m);
    expect(summarizeConfig(fromYaml(entry('')))).not.toMatch(/labels|exemplars/);
  });
});
