import { parseArgs } from 'node:util';
import { createApp } from './app.js';
import { ConfigError, problemLines } from './config/errors.js';
import { loadConfig, loadFlagSettings, type FlagOverrides } from './config/load.js';
import { summarizeConfig } from './config/summary.js';
import { DEFAULTS, type Config } from './config/types.js';
import type { Simulator } from './demo/simulator.js';
import { createLogger } from './logger.js';
import { readWebFiles } from './server/web-settings.js';
import { readBuildInfo, versionText } from './version.js';

/** A flag of the command line: how it is parsed, its lines in --help, and the setting it overrides. */
interface Flag {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  /** How --help names its value (none for a switch). */
  readonly value?: string;
  readonly help: readonly string[];
  /** Its default as --help shows it, read from DEFAULTS (config/types.ts) at the end of its last line. */
  readonly helpDefault?: (defaults: HelpDefaults) => string | number;
  /** The setting it overrides in the configuration (config/load.ts, FlagOverrides). */
  readonly override?: keyof FlagOverrides;
}

/** What --help reads of DEFAULTS (config/types.ts): its defaults are never typed twice. */
export interface HelpDefaults {
  readonly listenAddress: string;
  readonly telemetryPath: string;
  readonly logLevel: string;
  readonly logFormat: string;
  readonly sharding: { readonly shard: number; readonly total: number };
}

/** Every flag, in the order of --help; the parser, the help and the overrides derive from it. */
const FLAGS = {
  config: {
    type: 'string',
    value: 'FILE',
    help: [
      'YAML config file (env UPSTASH_EXPORTER_CONFIG); without it,',
      'configuration comes from QSTASH_TOKEN, UPSTASH_EMAIL, … (docs/configuration.md)',
    ],
  },
  'web.listen-address': {
    type: 'string',
    value: 'HOST:PORT',
    help: ['where the metrics are served'],
    helpDefault: (d) => d.listenAddress,
    override: 'listenAddress',
  },
  'web.telemetry-path': {
    type: 'string',
    value: 'PATH',
    help: ['the path of the metrics'],
    helpDefault: (d) => d.telemetryPath,
    override: 'telemetryPath',
  },
  'web.config.file': {
    type: 'string',
    value: 'FILE',
    help: ['TLS and basic auth for our endpoints (exporter-toolkit format)'],
    override: 'webConfigFile',
  },
  'web.enable-lifecycle': {
    type: 'boolean',
    help: ['let POST /-/reload reload the configuration, as SIGHUP does'],
    override: 'webEnableLifecycle',
  },
  'metrics.allow': {
    type: 'string',
    multiple: true,
    value: 'REGEX',
    help: [
      'show only the metric families whose name matches (repeatable;',
      'anchored at both ends; replaces metrics.allow of the file)',
    ],
    override: 'metricsAllow',
  },
  'metrics.deny': {
    type: 'string',
    multiple: true,
    value: 'REGEX',
    help: [
      'leave out the metric families whose name matches (repeatable;',
      'replaces metrics.deny of the file)',
    ],
    override: 'metricsDeny',
  },
  'log.level': {
    type: 'string',
    value: 'LEVEL',
    help: ['debug, info, warn or error'],
    helpDefault: (d) => d.logLevel,
    override: 'logLevel',
  },
  'log.format': {
    type: 'string',
    value: 'FORMAT',
    help: ['json, one object per line, or text, for terminals'],
    helpDefault: (d) => d.logFormat,
    override: 'logFormat',
  },
  shard: {
    type: 'string',
    value: 'N|auto',
    help: ["this process's shard, 0-based; auto reads it from the host name"],
    helpDefault: (d) => d.sharding.shard,
    override: 'shard',
  },
  'total-shards': {
    type: 'string',
    value: 'M',
    help: ['how many shards share the configuration'],
    helpDefault: (d) => d.sharding.total,
    override: 'totalShards',
  },
  demo: { type: 'boolean', help: ['run against an embedded simulator of Upstash; no credentials needed'] },
  'check-config': {
    type: 'boolean',
    help: ['validate the configuration, print a redacted summary, exit 0 or 2'],
  },
  version: { type: 'boolean', help: ['print the version and the revision it was built from, and exit'] },
  help: { type: 'boolean', short: 'h', help: ['print this help and exit'] },
} as const satisfies Record<string, Flag>;

type FlagValues = ReturnType<typeof parseFlags>;

/**
 * What the flags that override a setting give it, keyed by the setting; a flag whose parsed value does
 * not fit its setting is a type error where this is handed to the configuration.
 */
type Overrides = {
  [
    N in keyof typeof FLAGS as (typeof FLAGS)[N] extends { readonly override: infer K extends string }
      ? K
      : never
  ]: FlagValues[N];
};

/** The flags given, parsed as the table says; throws on one it does not know or a missing value. */
function parseFlags(argv: string[]) {
  return parseArgs({ args: argv, strict: true, allowPositionals: false, options: FLAGS }).values;
}

/** The settings the given flags override, as the configuration takes them. */
function overridesOf(values: FlagValues): Overrides {
  const overrides: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(FLAGS) as [keyof FlagValues, Flag][])
    if (flag.override !== undefined) overrides[flag.override] = values[name];
  return overrides as Overrides;
}

/** The column where --help's descriptions start. */
const HELP_COLUMN = 35;

/** The text of --help, from the table of flags and `defaults`. */
export function usage(defaults: HelpDefaults = DEFAULTS): string {
  const lines = Object.entries(FLAGS).flatMap(([name, flag]: [string, Flag]) => {
    const value = flag.value === undefined ? '' : ` ${flag.value}`;
    const head = `  ${flag.short === undefined ? '' : `-${flag.short}, `}--${name}${value}`;
    const shown = flag.helpDefault?.(defaults);
    const last = flag.help.length - 1;
    return flag.help.map((line, i) => {
      // A text default quoted, as Prometheus' exporters show theirs: (default ":9645").
      const tail = i < last || shown === undefined ? '' : ` (default ${JSON.stringify(shown)})`;
      return `${(i === 0 ? head : '').padEnd(HELP_COLUMN)}${line}${tail}`;
    });
  });
  return `Usage: upstash-exporter [flags]

Prometheus exporter for Upstash, on any plan: QStash (flow control, URL groups, queues, schedules,
dead-letter queues, usage and limits), Redis databases (stats, limits, settings, backups), and Vector
and Search indexes, polled from the QStash API (a token) and the management API (e-mail, API key).

Flags:
${lines.join('\n')}
`;
}

const EXIT_CONFIG = 2;
const EXIT_FATAL = 1;

/** The process signals, as main.ts listens to them from its first line. */
export interface Signals {
  /** Settles with the first SIGTERM or SIGINT. */
  readonly shutdown: Promise<NodeJS.Signals>;
  /** Sets what a SIGHUP does; until then it does nothing. */
  onHangup(reload: () => void): void;
}

/** The program: flags, configuration, the exporter, reloads and shutdown; resolves with the exit code. */
export async function main(argv: string[], signals: Signals): Promise<number> {
  let flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    console.error(`upstash-exporter: ${error instanceof Error ? error.message : String(error)}`);
    console.error("Run 'upstash-exporter --help' for the flags.");
    return EXIT_CONFIG;
  }
  const build = readBuildInfo();
  if (flags.help === true) {
    process.stdout.write(usage());
    return 0;
  }
  if (flags.version === true) {
    process.stdout.write(versionText(build));
    return 0;
  }

  const env = process.env;
  const overrides = overridesOf(flags);

  const configFile =
    flags.config ?? (env.UPSTASH_EXPORTER_CONFIG === '' ? undefined : env.UPSTASH_EXPORTER_CONFIG);
  let config: Config;
  let simulator: Simulator | undefined;
  try {
    if (flags.demo === true) {
      const base = loadFlagSettings(overrides);
      // Loaded only with --demo: the simulator and its data are no part of a production process.
      const { startSimulator } = await import('./demo/simulator.js');
      const { demoConfig } = await import('./demo/demo-config.js');
      simulator = await startSimulator();
      config = demoConfig(simulator.url, base);
    } else {
      config = loadConfig({ configFile, env, flags: overrides });
    }
    // Checked here so that a bad web config is a configuration error (exit 2), like the rest.
    if (config.webConfigFile !== undefined) readWebFiles(config.webConfigFile);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(problemLines(error.problems));
    return EXIT_CONFIG;
  }
  if (flags['check-config'] === true) {
    process.stdout.write(summarizeConfig(config));
    await simulator?.stop();
    return 0;
  }

  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  if (simulator !== undefined) {
    // Said before the first poll, so the warnings the simulator causes on purpose read as the demo's.
    // Through the logger, so that JSON logs stay one object per line.
    logger.info(
      { simulator: simulator.url },
      'demo: polling the embedded Upstash simulator, no real account',
    );
    const { DEMO_INJECTED } = await import('./demo/injected.js');
    for (const { injected, message } of DEMO_INJECTED) logger.info({ injected }, message);
  }
  // What a reload reads (SIGHUP and POST /-/reload alike): the demo keeps its configuration; a
  // configuration that does not validate throws, and the app keeps the running one.
  const reread = (): Config =>
    simulator === undefined ? loadConfig({ configFile, env: process.env, flags: overrides }) : config;
  const app = createApp(config, { logger, ...build, loadConfig: reread });
  try {
    const address = await Promise.race([app.start(), signals.shutdown]);
    if (typeof address === 'string') {
      logger.info({ signal: address }, 'shutting down during start-up');
      await app.stop();
      await simulator?.stop();
      return 0;
    }
    if (simulator !== undefined) {
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      const shown = host === '[::]' || host === '0.0.0.0' ? 'localhost' : host;
      const base = `http://${shown}:${address.port}`;
      logger.info(
        { landing_page: `${base}/`, metrics: `${base}${config.telemetryPath}` },
        'demo: open the landing page (every source and its last poll) and /metrics',
      );
    }
  } catch (error) {
    logger.fatal({ err: error }, 'cannot start');
    // Also on stderr, for whoever reads only that (a service manager, a terminal with stdout piped).
    console.error(
      `upstash-exporter: cannot start: ${error instanceof Error ? error.message : String(error)}`,
    );
    await app.stop().catch(() => undefined);
    await simulator?.stop();
    return EXIT_FATAL;
  }

  // SIGHUP: re-read the configuration, secrets and web config when the reload runs (app.reload
  // queues it); a configuration that does not validate is reported and the running one kept.
  signals.onHangup(() => {
    void app.reload(() => {
      logger.info('SIGHUP: reloading the configuration');
      return reread();
    });
  });

  const signal = await signals.shutdown;
  logger.info({ signal }, 'shutting down');
  await app.stop();
  await simulator?.stop();
  logger.info('stopped');
  return 0;
}
