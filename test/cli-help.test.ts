import { describe, expect, test } from 'vitest';
import { usage } from '../src/cli.js';
import { DEFAULTS } from '../src/config/types.js';

// --help shows each default from DEFAULTS, never typed beside it (docs/architecture.md, "Adding a flag").

/** The line of `help` that describes `flag`, its spaces folded. */
const lineOf = (help: string, flag: string): string | undefined =>
  help
    .split('\n')
    .find((line) => line.trimStart().startsWith(`${flag} `))
    ?.replace(/\s+/g, ' ')
    .trim();

describe('--help', () => {
  test('shows the defaults of the settings the flags override', () => {
    const help = usage();
    expect(lineOf(help, '--web.listen-address')).toBe(
      '--web.listen-address HOST:PORT where the metrics are served (default ":9645")',
    );
    expect(lineOf(help, '--web.telemetry-path')).toBe(
      '--web.telemetry-path PATH the path of the metrics (default "/metrics")',
    );
    expect(lineOf(help, '--log.level')).toBe('--log.level LEVEL debug, info, warn or error (default "info")');
    expect(lineOf(help, '--log.format')).toBe(
      '--log.format FORMAT json, one object per line, or text, for terminals (default "json")',
    );
    expect(lineOf(help, '--shard')).toBe(
      "--shard N|auto this process's shard, 0-based; auto reads it from the host name (default 0)",
    );
    expect(lineOf(help, '--total-shards')).toBe(
      '--total-shards M how many shards share the configuration (default 1)',
    );
  });

  test('a changed default changes the help, and nothing else of it', () => {
    const changed = usage({
      ...DEFAULTS,
      listenAddress: '127.0.0.1:9999',
      logFormat: 'text',
      sharding: { shard: 0, total: 3 },
    });
    expect(lineOf(changed, '--web.listen-address')).toBe(
      '--web.listen-address HOST:PORT where the metrics are served (default "127.0.0.1:9999")',
    );
    expect(lineOf(changed, '--log.format')).toMatch(/\(default "text"\)$/);
    expect(lineOf(changed, '--total-shards')).toMatch(/\(default 3\)$/);
    expect(changed).not.toContain(':9645');
    const unchanged = (help: string): string[] =>
      help.split('\n').filter((line) => !/--(?:web\.listen-address|log\.format|total-shards) /.test(line));
    expect(unchanged(changed)).toEqual(unchanged(usage()));
  });
});
