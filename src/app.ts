import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResourceLimits } from 'node:worker_threads';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { plainHttpAccounts } from './config/addresses.js';
import type { Config } from './config/types.js';
import { familyPredicate } from './metrics/family-filter.js';
import { registerProcessMetrics } from './metrics/process-metrics.js';
import type { WorkerStats } from './worker/protocol.js';
import { PollThread } from './worker/thread.js';
import { keepRestartSettings, ReloadQueue } from './reload-queue.js';
import { listen } from './server/listener.js';
import { createHandler, type ReloadOutcome } from './server/routes.js';
import { createMetricsEndpoint, keepWarm } from './server/metrics-endpoint.js';
import { createWebServer } from './server/web-server.js';
import { WebSettings } from './server/web-settings.js';

/** What the composition root needs besides the configuration. */
export interface AppOptions {
  readonly logger: Logger;
  readonly version: string;
  /** The git commit the program was built from, as src/version.ts reads it (`unknown` there, once). */
  readonly revision: string;
  /**
   * Reads the configuration again, for `POST /-/reload` (what SIGHUP reads); throws a ConfigError when
   * it does not validate. Without it, a reload applies the running configuration again.
   */
  readonly loadConfig?: () => Config;
  /** The poll worker's entry module; by default the one built beside app.js (worker/worker.js). */
  readonly pollWorker?: URL;
  /** The poll worker's heap limits (as a memory-limited container caps it; tests of its death). */
  readonly pollWorkerLimits?: ResourceLimits;
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
   * Given a loader, reads the configuration when the reload runs; one that throws a ConfigError keeps
   * the running configuration (the problems are logged and in the outcome). Reloads run one after
   * another; one asked for while another waits to start joins it, with the latest configuration (a
   * burst of SIGHUPs is one reload), and shares its outcome. A failed reload is logged.
   */
  reload(next: Config | (() => Config)): Promise<ReloadOutcome>;
  /** What the poll worker's thread holds (its heap and handles, which this thread cannot see). */
  pollWorkerStats(): Promise<WorkerStats | undefined>;
}

/** Builds everything from a Config; nothing runs until `start()`. */
export function createApp(config: Config, options: AppOptions): App {
  const { logger, version, revision } = options;
  // This thread's registry holds the process metrics; the poll worker renders the rest.
  const registry = new Registry();
  registerProcessMetrics(registry);
  const polling = new PollThread(config, {
    logger,
    version,
    revision,
    ...(options.pollWorker !== undefined && { entry: options.pollWorker }),
    ...(options.pollWorkerLimits !== undefined && { resourceLimits: options.pollWorkerLimits }),
  });
  // How a scrape is answered, and when a body is rebuilt: server/metrics-endpoint.ts.
  const endpoint = createMetricsEndpoint(polling, registry, familyPredicate(config.metrics));
  let running = config;
  let web: WebSettings | undefined;
  let stopWarming: (() => void) | undefined;
  let server: Server | undefined;

  const applyReload = async (next: Config): Promise<void> => {
    warnPlainHttp(next, logger);
    const kept = keepRestartSettings(running, next, logger);
    const keep = familyPredicate(kept.metrics);
    // Resolves once a worker runs the new configuration. This thread's part of it (metrics.allow and
    // deny, the log level, --web.enable-lifecycle, the web config file read again) applies in the same
    // moment as the publication of what it changed, so no scrape shows one without the other; a reload
    // the worker refuses leaves all of it as it ran.
    const sources = await polling.reload(kept, () => {
      web?.reload();
      running = kept;
      logger.level = kept.logLevel;
      endpoint.reconfigure(keep);
    });
    logger.info({ sources }, 'configuration reloaded');
  };

  const reloads = new ReloadQueue(applyReload, logger);
  const loadConfig = options.loadConfig ?? (() => running);

  const app: App = {
    async start() {
      web = new WebSettings(config.webConfigFile, logger);
      const handler = createHandler({
        exposition: async (format, encoding) => endpoint.body(format, encoding),
        readiness: () => polling.readiness(),
        sources: () => polling.status(),
        version,
        telemetryPath: config.telemetryPath,
        revision,
        shard: `${config.sharding.shard} of ${config.sharding.total}`,
        lifecycle: () => running.webEnableLifecycle,
        reload: async () => app.reload(loadConfig),
        logger,
      });
      server = createWebServer(web, handler, logger);
      warnPlainHttp(config, logger);
      // The worker loads and starts polling while the server starts listening; the exporter says it
      // listens once /metrics shows what is polled (the worker's first publication).
      const polled = reloads.stopped ? Promise.resolve() : polling.start();
      const address = await listen(server, config.listenAddress, logger);
      await polled;
      logger.info({ address: `${address.address}:${address.port}`, version, revision }, 'listening');
      if (!reloads.stopped) stopWarming = keepWarm(endpoint, polling);
      return address;
    },
    async stop() {
      // No reload starts from now on; one waiting for a worker (down, restarting) is answered by the
      // poll thread's stop, so that a crash-looping worker cannot hold the exit.
      const reloading = reloads.stop();
      stopWarming?.();
      await polling.stop();
      await reloading;
      if (server !== undefined) {
        const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
        server.closeAllConnections();
        await closing;
      }
    },
    async reload(next) {
      return reloads.request(next);
    },
    async pollWorkerStats() {
      return polling.stats();
    },
  };
  return app;
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
