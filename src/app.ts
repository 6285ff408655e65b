import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { plainHttpAccounts } from './config/addresses.js';
import type { Config } from './config/types.js';
import { DataSeries } from './metrics/data-series.js';
import { Poller, type CarriedState, type PollGroup } from './poller/poller.js';
import { createSelfMetrics, type SelfMetrics } from './poller/self-metrics.js';
import { listen } from './server/listener.js';
import { createHandler } from './server/routes.js';
import { createMetricsCache } from './server/scrape-cache.js';
import { createWebServer } from './server/web-server.js';
import { WebSettings } from './server/web-settings.js';
import { DATA_METRICS } from './sources/kinds.js';
import { entryUnits, type SourceEntry } from './sources/units.js';
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
  const metrics = createSelfMetrics(registry, { version });
  const series = new DataSeries(DATA_METRICS);
  let running = config;
  let { client, poller } = buildPolling(config, { version, metrics, series, logger });
  let web: WebSettings | undefined;
  // After a reload the new poller starts from `pending`; the exporter stays ready meanwhile.
  let wasReady = false;

  // Scrapes are answered from one cache; see ExpositionCache for what is rendered when.
  const scrapeCache = createMetricsCache(series, metrics, registry);
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
    await poller.stop();
    await client.close();
    if (stopped) return;
    const built = buildPolling(next, { version, metrics, series, logger }, poller.carryOver());
    // Units gone from the configuration take their series and health metrics with them.
    const kept = new Set(built.poller.unitIds);
    for (const id of poller.unitIds) if (!kept.has(id)) poller.removeUnit(id);
    ({ client, poller } = built);
    running = { ...next, listenAddress: running.listenAddress, webConfigFile: running.webConfigFile };
    poller.start();
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
        logger,
      });
      server = createWebServer(web, handler, logger);
      warnPlainHttp(config, logger);
      const address = await listen(server, config.listenAddress, logger);
      logger.info({ address: `${address.address}:${address.port}`, version }, 'listening');
      poller.start();
      return address;
    },
    async stop() {
      stopped = true;
      await reloading.catch(() => undefined);
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

interface PollingParts {
  readonly version: string;
  readonly metrics: SelfMetrics;
  readonly series: DataSeries;
  readonly logger: Logger;
}

/** The client and poller of one configuration. */
function buildPolling(config: Config, parts: PollingParts, carryOver?: ReadonlyMap<string, CarriedState>) {
  const { version, metrics, series, logger } = parts;
  const client = new UpstashClient({
    ...config.http,
    userAgent: `upstash-exporter/${version} (node ${process.version})`,
    onRequest: (api, code) => metrics.apiRequest(api, code),
  });
  const groups = sourceEntries(config).map(({ key, schedule, entry }): PollGroup => ({
    key,
    cron: schedule.cron,
    intervalMs: schedule.intervalMs,
    units: entryUnits(entry, { client, limits: config.limits }),
  }));
  const poller = new Poller({ groups, series, metrics, logger, ...(carryOver && { carryOver }) });
  return { client, poller };
}

/** The config's entries as the sources see them, each with its schedule. */
function sourceEntries(config: Config) {
  return [
    ...config.qstash.map((account) => ({
      key: `qstash/${account.name}`,
      schedule: account.schedule,
      entry: {
        account: {
          name: account.name,
          baseUrl: account.url,
          credentials: { api: 'qstash', token: account.token },
        },
        sources: account.sources,
        units: { database: [] },
      } satisfies SourceEntry,
    })),
    ...config.management.map((account) => ({
      key: `management/${account.name}`,
      schedule: account.schedule,
      entry: {
        account: {
          name: account.name,
          baseUrl: account.url,
          credentials: { api: 'management', email: account.email, apiKey: account.apiKey },
        },
        sources: ['redis_stats'],
        units: { database: account.databases },
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
