import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { plainHttpAccounts } from './config/addresses.js';
import type { Config } from './config/types.js';
import { registerProcessMetrics } from './metrics/process-metrics.js';
import { PollThread } from './poll-thread.js';
import { listen } from './server/listener.js';
import { createHandler } from './server/routes.js';
import { createMetricsCache, keepWarm } from './server/scrape-cache.js';
import { createWebServer } from './server/web-server.js';
import { WebSettings } from './server/web-settings.js';

/** What the composition root needs besides the configuration. */
export interface AppOptions {
  readonly logger: Logger;
  readonly version: string;
  /** The poll worker's entry module; by default the one built beside app.js (poll-worker.js). */
  readonly pollWorker?: URL;
}

/**
 * A running exporter, built from one Config: the HTTP server on this thread, and the poll worker
 * (poller, Upstash client, parsing and rendering) on a thread of its own.
 */
export interface App {
  /** Starts polling and listening; resolves with the bound address. */
  start(): Promise<AddressInfo>;
  /** Stops polling (aborting polls in flight) and closes the server and the Upstash sockets. */
  stop(): Promise<void>;
  /**
   * Applies a new, already validated configuration (SIGHUP): sources, credentials, intervals, HTTP
   * settings, limits and log level, and re-reads the web config file. The listen address is kept.
   * Given a loader, reads the configuration when the reload runs (undefined: keep the running one).
   * Reloads run one after another; one asked for while another waits to start joins it, with the
   * latest configuration (a burst of SIGHUPs is one reload). A failed reload is logged.
   */
  reload(next: Config | (() => Config | undefined)): Promise<void>;
}

/** Builds everything from a Config; nothing runs until `start()`. */
export function createApp(config: Config, options: AppOptions): App {
  const { logger, version } = options;
  // This thread's registry holds the process metrics; the poll worker renders the rest.
  const registry = new Registry();
  registerProcessMetrics(registry);
  const polling = new PollThread(config, {
    logger,
    version,
    ...(options.pollWorker !== undefined && { entry: options.pollWorker }),
  });
  // Scrapes are answered from one cache; see ExpositionCache for what is rendered when.
  const scrapeCache = createMetricsCache(polling, registry);
  let running = config;
  let web: WebSettings | undefined;
  let stopWarming: (() => void) | undefined;
  let server: Server | undefined;

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
    running = {
      ...next,
      listenAddress: running.listenAddress,
      webConfigFile: running.webConfigFile,
      logFormat: running.logFormat,
      sharding: running.sharding,
    };
    const sources = await polling.reload(running);
    logger.info({ sources }, 'configuration reloaded');
  };

  // The one reload queue. stop() waits for the reload in progress: one that finished after stop()
  // would start polls nobody stops.
  let stopped = false;
  let reloading: Promise<void> = Promise.resolve();
  let waiting: (() => Config | undefined) | undefined;

  return {
    async start() {
      web = new WebSettings(config.webConfigFile, logger);
      const handler = createHandler({
        exposition: async (format, encoding) => scrapeCache.body(format, encoding),
        ready: () => polling.ready,
        sources: () => polling.status(),
        version,
        shard: `${config.sharding.shard} of ${config.sharding.total}`,
        logger,
      });
      server = createWebServer(web, handler, logger);
      warnPlainHttp(config, logger);
      // The worker loads and starts polling while the server starts listening; the exporter says it
      // listens once /metrics shows what is polled (the worker's first publication).
      const polled = stopped ? Promise.resolve() : polling.start();
      const address = await listen(server, config.listenAddress, logger);
      await polled;
      logger.info({ address: `${address.address}:${address.port}`, version }, 'listening');
      if (!stopped) stopWarming = keepWarm(scrapeCache);
      return address;
    },
    async stop() {
      stopped = true;
      await reloading;
      stopWarming?.();
      await polling.stop();
      if (server !== undefined) {
        const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
        server.closeAllConnections();
        await closing;
      }
    },
    async reload(next) {
      const joins = waiting !== undefined;
      waiting = typeof next === 'function' ? next : () => next;
      if (joins) return reloading;
      reloading = reloading
        .then(async () => {
          const load = waiting;
          waiting = undefined;
          const loaded = stopped ? undefined : load?.();
          if (loaded !== undefined) await applyReload(loaded);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'reload failed');
        });
      return reloading;
    },
  };
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
