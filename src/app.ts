import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { plainHttpAccounts } from './config/addresses.js';
import type { Schedule } from './config/schedule.js';
import type { Config } from './config/types.js';
import { DataSeries } from './metrics/data-series.js';
import { Poller, type PollGroup } from './poller/poller.js';
import { createSelfMetrics, type SelfMetrics } from './poller/self-metrics.js';
import { listen } from './server/listener.js';
import { createHandler } from './server/routes.js';
import { createMetricsCache, keepWarm } from './server/scrape-cache.js';
import { createWebServer } from './server/web-server.js';
import { WebSettings } from './server/web-settings.js';
import { anchoredRegex } from './sources/databases.js';
import { DATA_METRICS } from './sources/kinds.js';
import { entryUnits, type SourceEntry, type UnitDeps } from './sources/units.js';
import { UpstashClient } from './upstash/client.js';

/** What the composition root needs besides the configuration. */
export interface AppOptions {
  readonly logger: Logger;
  readonly version: string;
}

/** A running exporter: poller, client and HTTP server, built from one Config. */
export interface App {
  /** Starts polling and listening; resolves with the bound address. */
  start(): Promise<AddressInfo>;
  /** Stops polling (aborting polls in flight) and closes the server and the Upstash sockets. */
  stop(): Promise<void>;
  /**
   * Applies a new, already validated configuration (SIGHUP): sources, credentials, intervals, HTTP
   * settings, limits and log level, and re-reads the web config file. The listen address is kept.
   */
  reload(next: Config): Promise<void>;
}

/** Builds everything from a Config; nothing runs until `start()`. */
export function createApp(config: Config, options: AppOptions): App {
  const { logger, version } = options;
  const registry = new Registry();
  const metrics = createSelfMetrics(registry, { version, sharding: config.sharding });
  const series = new DataSeries(DATA_METRICS);
  let running = config;
  let client = createClient(config, version, metrics);
  // The entries' sources that run on their own schedule, as `<entry key>/<source>`: their own groups.
  const ownGroups = new Set<string>();
  const discovered: UnitDeps['onDiscovered'] = (key, family, units) => {
    const own = `${key}/${family.slice(0, family.indexOf('/'))}`;
    poller.syncUnits(ownGroups.has(own) ? own : key, family, units);
  };
  // What the listings last said, for the life of the process (reloads included).
  const known: UnitDeps['known'] = new Map();
  // One poller for the life of the process: a reload reconfigures it, so no unit loses its state.
  const poller = new Poller({
    groups: pollGroups(config, client, { discovered, known, ownGroups }),
    series,
    metrics,
    logger,
  });
  let web: WebSettings | undefined;
  // Units a reload adds start `pending`; the exporter stays ready meanwhile.
  let wasReady = false;

  // Scrapes are answered from one cache; see ExpositionCache for what is rendered when.
  const scrapeCache = createMetricsCache(series, metrics, registry);
  let stopWarming: (() => void) | undefined;
  let server: Server | undefined;
  // Reloads run one after another, and stop() waits for the one in progress: a reload that finished
  // after stop() would start a poller nobody stops.
  let stopped = false;
  let reloading: Promise<void> = Promise.resolve();

  const applyReload = async (next: Config): Promise<void> => {
    web?.reload();
    logger.level = next.logLevel;
    for (const [setting, runningValue, configured] of [
      ['listen address', running.listenAddress, next.listenAddress],
      ['web config file', running.webConfigFile, next.webConfigFile],
      ['log format', running.logFormat, next.logFormat],
      ['shard', running.sharding.shard, next.sharding.shard],
      ['total shards', running.sharding.total, next.sharding.total],
    ] as const) {
      if (configured !== runningValue) {
        logger.warn(
          { setting, running: runningValue, configured },
          'this setting needs a restart; keeping the running one',
        );
      }
    }
    warnPlainHttp(next, logger);
    wasReady ||= poller.ready;
    // New HTTP settings take a new client; polls in flight finish on the old one, then it closes.
    const previous = client;
    if (!sameHttp(running.http, next.http)) client = createClient(next, version, metrics);
    await poller.reconfigure(
      pollGroups({ ...next, sharding: running.sharding }, client, { discovered, known, ownGroups }),
    );
    if (previous !== client) void poller.settled().then(async () => previous.close());
    running = {
      ...next,
      listenAddress: running.listenAddress,
      webConfigFile: running.webConfigFile,
      logFormat: running.logFormat,
      sharding: running.sharding,
    };
    logger.info({ sources: poller.unitIds.length }, 'configuration reloaded');
  };

  return {
    async start() {
      web = new WebSettings(config.webConfigFile, logger);
      const handler = createHandler({
        exposition: async (format, encoding) => scrapeCache.body(format, encoding),
        ready: () => wasReady || poller.ready,
        sources: () => poller.status(),
        version,
        shard: `${config.sharding.shard} of ${config.sharding.total}`,
        logger,
      });
      server = createWebServer(web, handler, logger);
      warnPlainHttp(config, logger);
      const address = await listen(server, config.listenAddress, logger);
      logger.info({ address: `${address.address}:${address.port}`, version }, 'listening');
      if (!stopped) stopWarming = keepWarm(scrapeCache);
      poller.start();
      return address;
    },
    async stop() {
      stopped = true;
      await reloading.catch(() => undefined);
      stopWarming?.();
      await poller.stop();
      if (server !== undefined) {
        const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
        server.closeAllConnections();
        await closing;
      }
      await client.close();
    },
    async reload(next) {
      reloading = reloading.then(async () => (stopped ? undefined : applyReload(next)));
      return reloading;
    },
  };
}

/** The Upstash client of a configuration's HTTP settings, counting its requests. */
function createClient(config: Config, version: string, metrics: SelfMetrics): UpstashClient {
  return new UpstashClient({
    ...config.http,
    userAgent: `upstash-exporter/${version} (node ${process.version})`,
    onRequest: (api, code) => metrics.apiRequest(api, code),
  });
}

function sameHttp(a: Config['http'], b: Config['http']): boolean {
  return (Object.keys(a) as (keyof Config['http'])[]).every((key) => a[key] === b[key]);
}

/**
 * One poll group per config entry: its schedule and the units of its sources; a source that runs
 * on a schedule of its own (`backups_interval`) has a group of its own, `<entry key>/<source>`,
 * named in `ownGroups`. A listing source's news reaches the poller through `discovered` (units of a
 * family join and leave together).
 */
function pollGroups(
  config: Config,
  client: UpstashClient,
  {
    discovered,
    known,
    ownGroups,
  }: { discovered: UnitDeps['onDiscovered']; known: UnitDeps['known']; ownGroups: Set<string> },
): PollGroup[] {
  ownGroups.clear();
  return sourceEntries(config).flatMap(({ schedule, sourceSchedules = {}, entry }) => {
    const units = entryUnits(entry, {
      client,
      limits: config.limits,
      shard: config.sharding,
      known,
      onDiscovered: discovered,
    });
    const own: [string, Schedule][] = Object.entries(sourceSchedules);
    for (const [source] of own) ownGroups.add(`${entry.key}/${source}`);
    return [
      {
        key: entry.key,
        cron: schedule.cron,
        intervalMs: schedule.intervalMs,
        units: units.filter((unit) => !own.some(([source]) => source === unit.labels.source)),
      },
      ...own.map(([source, { cron, intervalMs }]) => ({
        key: `${entry.key}/${source}`,
        cron,
        intervalMs,
        units: units.filter((unit) => unit.labels.source === source),
      })),
    ];
  });
}

/** The config's entries as the sources see them, each with its schedule. */
function sourceEntries(config: Config) {
  return [
    ...config.qstash.map((account) => ({
      schedule: account.schedule,
      sourceSchedules: account.sourceSchedules,
      entry: {
        key: `qstash/${account.name}`,
        account: {
          name: account.name,
          baseUrl: account.url,
          credentials: { api: 'qstash', token: account.token },
        },
        sources: account.sources,
        units: { database: [], qstash_instance: [], vector_index: [], search_index: [] },
      } satisfies SourceEntry,
    })),
    ...config.management.map((account) => ({
      schedule: account.schedule,
      sourceSchedules: account.sourceSchedules,
      entry: {
        key: `management/${account.name}`,
        account: {
          name: account.name,
          baseUrl: account.url,
          credentials: { api: 'management', email: account.email, apiKey: account.apiKey },
        },
        sources: account.sources,
        units: {
          database: account.databases ?? 'discovered',
          qstash_instance: account.sources.includes('qstash_stats') ? 'discovered' : [],
          vector_index: account.sources.includes('vector_stats') ? 'discovered' : [],
          search_index: account.sources.includes('search_stats') ? 'discovered' : [],
        },
        databases: {
          ids: account.databases,
          include: account.include.map(anchoredRegex),
          exclude: account.exclude.map(anchoredRegex),
        },
      } satisfies SourceEntry,
    })),
  ];
}

/** Warns when a credential would cross the network unencrypted. */
function warnPlainHttp(config: Config, logger: Logger): void {
  for (const { kind, name, host } of plainHttpAccounts(config)) {
    logger.warn(
      { [kind]: name, host },
      'credentials will be sent over plain http to a non-loopback host; use https',
    );
  }
}
