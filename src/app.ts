import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Config, ManagementAccount, QstashAccount } from './config/types.js';
import { DataSeries } from './metrics/data-series.js';
import { flowControlSamples, redisStatsSamples, urlGroupSamples } from './metrics/samples.js';
import { createLabelLimiter, type LabelLimiter } from './metrics/label-limit.js';
import { createSelfMetrics, type SelfMetrics } from './metrics/self-metrics.js';
import { Poller, type CarriedState, type PollJob, type PollSource } from './poller.js';
import { listen } from './server/listener.js';
import { createHandler } from './server/routes.js';
import { createMetricsCache } from './server/scrape-cache.js';
import { createWebServer } from './server/web-server.js';
import { WebSettings } from './server/web-settings.js';
import { UpstashClient } from './upstash/client.js';
import { fetchFlowControl } from './upstash/flow-control.js';
import { fetchRedisStats } from './upstash/redis-stats.js';
import { fetchUrlGroups } from './upstash/url-groups.js';

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
  const series = new DataSeries();
  const limiter = createLabelLimiter(registry);
  let running = config;
  let { client, poller, sources } = buildPolling(config, { version, metrics, series, logger, limiter });
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
    const built = buildPolling(next, { version, metrics, series, logger, limiter }, poller.carryOver());
    // Sources gone from the configuration take their series and health metrics with them.
    const kept = new Set(built.sources.map((source) => source.id));
    for (const source of sources) {
      if (kept.has(source.id)) continue;
      series.drop(source.id);
      metrics.forgetSource(source.labels);
      limiter.forget(source.labels);
    }
    ({ client, poller, sources } = built);
    running = { ...next, listenAddress: running.listenAddress, webConfigFile: running.webConfigFile };
    poller.start();
    logger.info({ sources: sources.length }, 'configuration reloaded');
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
  readonly limiter: LabelLimiter;
}

/** The client, sources and poller of one configuration. */
function buildPolling(config: Config, parts: PollingParts, carryOver?: ReadonlyMap<string, CarriedState>) {
  const { version, metrics, series, logger, limiter } = parts;
  const client = new UpstashClient({
    ...config.http,
    userAgent: `upstash-exporter/${version} (node ${process.version})`,
    onRequest: (api, code) => metrics.apiRequest(api, code),
  });
  const jobs = [
    ...config.qstash.map((account) => qstashJob(account, client, config)),
    ...config.management.map((account) => managementJob(account, client)),
  ].map((job) => ({ ...job, sources: job.sources.map((source) => limitLabels(source, limiter)) }));
  const sources = jobs.flatMap((job) => job.sources);
  const poller = new Poller({ jobs, series, metrics, logger, ...(carryOver && { carryOver }) });
  return { client, poller, sources };
}

/** Caps the label values a source produces (length, well-formed UTF-16), counting what was cut. */
function limitLabels(source: PollSource, limiter: LabelLimiter): PollSource {
  return {
    ...source,
    poll: async (context) => limiter.limit(source.labels, await source.poll(context)),
  };
}

/** Warns when a credential would cross the network unencrypted. */
function warnPlainHttp(config: Config, logger: Logger): void {
  const accounts = [
    ...config.qstash.map((a) => ({ kind: 'qstash', name: a.name, url: a.url })),
    ...config.management.map((a) => ({ kind: 'management', name: a.name, url: a.url })),
  ];
  for (const { kind, name, url } of accounts) {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
      logger.warn(
        { [kind]: name, host: parsed.host },
        'credentials will be sent over plain http to a non-loopback host; use https',
      );
    }
  }
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host.startsWith('127.');
}

function qstashJob(account: QstashAccount, client: UpstashClient, config: Config): PollJob {
  const target = (context: { signal: AbortSignal; deadline: number }) => ({
    baseUrl: account.url,
    authorization: `Bearer ${account.token.reveal()}`,
    ...context,
  });
  const { maxFlowControlKeys, maxUrlGroups } = config.limits;
  const sources = account.sources.map((source): PollSource => ({
    id: `${source}/${account.name}`,
    labels: { source, account: account.name, database_id: '' },
    poll:
      source === 'flow_control'
        ? async (context) =>
            flowControlSamples(
              account.name,
              await fetchFlowControl(client, target(context)),
              maxFlowControlKeys,
            )
        : async (context) =>
            urlGroupSamples(account.name, await fetchUrlGroups(client, target(context)), maxUrlGroups),
  }));
  return { cron: account.schedule.cron, intervalMs: account.schedule.intervalMs, sources };
}

function managementJob(account: ManagementAccount, client: UpstashClient): PollJob {
  const sources = account.databases.map((databaseId): PollSource => ({
    id: `redis_stats/${account.name}/${databaseId}`,
    labels: { source: 'redis_stats', account: account.name, database_id: databaseId },
    poll: async (context) => {
      const basic = Buffer.from(`${account.email}:${account.apiKey.reveal()}`).toString('base64');
      const stats = await fetchRedisStats(client, {
        baseUrl: account.url,
        authorization: `Basic ${basic}`,
        databaseId,
        ...context,
      });
      return redisStatsSamples(account.name, databaseId, stats);
    },
  }));
  return { cron: account.schedule.cron, intervalMs: account.schedule.intervalMs, sources };
}
