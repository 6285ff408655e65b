import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { Config, ManagementAccount, QstashAccount } from './config/types.js';
import { DataSeries } from './metrics/data-series.js';
import type { Format } from './metrics/exposition.js';
import { flowControlSamples, redisStatsSamples, urlGroupSamples } from './metrics/samples.js';
import { createSelfMetrics, renderRegistry } from './metrics/self-metrics.js';
import { Poller, type PollJob, type PollSource } from './poller.js';
import { createHttpServer, listen } from './server.js';
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
}

/** Builds everything from a Config; nothing runs until `start()`. */
export function createApp(config: Config, options: AppOptions): App {
  const { logger, version } = options;
  const registry = new Registry();
  const metrics = createSelfMetrics(registry, { version });
  const series = new DataSeries();
  const client = new UpstashClient({
    ...config.http,
    userAgent: `upstash-exporter/${version} (node ${process.version})`,
    onRequest: (api, code) => metrics.apiRequest(api, code),
  });
  const jobs = [
    ...config.qstash.map((account) => qstashJob(account, client, config)),
    ...config.management.map((account) => managementJob(account, client)),
  ];
  const poller = new Poller({ jobs, series, metrics, logger });

  const exposition = async (format: Format): Promise<string> => {
    const own = await renderRegistry(registry, format);
    return `${series.render(format)}${own}${format === 'openmetrics' ? '# EOF\n' : ''}`;
  };
  let server: Server | undefined;

  return {
    async start() {
      server = createHttpServer({
        exposition,
        ready: () => poller.ready,
        sources: () => poller.status(),
        version,
        logger,
      });
      const address = await listen(server, config.listenAddress);
      logger.info({ address: `${address.address}:${address.port}`, version }, 'listening');
      poller.start();
      return address;
    },
    async stop() {
      await poller.stop();
      if (server !== undefined) {
        const closing = new Promise<void>((resolve) => server?.close(() => resolve()));
        server.closeAllConnections();
        await closing;
      }
      await client.close();
    },
  };
}

function qstashJob(account: QstashAccount, client: UpstashClient, config: Config): PollJob {
  const target = (context: { signal: AbortSignal; deadline: number }) => ({
    baseUrl: account.url,
    authorization: `Bearer ${account.token.reveal()}`,
    ...context,
  });
  const sources = account.sources.map((source): PollSource => {
    const labels = { source, account: account.name, database_id: '' };
    const id = `${source}/${account.name}`;
    return source === 'flow_control'
      ? {
          id,
          labels,
          poll: async (context) =>
            flowControlSamples(
              account.name,
              await fetchFlowControl(client, target(context)),
              config.limits.maxFlowControlKeys,
            ),
        }
      : {
          id,
          labels,
          poll: async (context) =>
            urlGroupSamples(
              account.name,
              await fetchUrlGroups(client, target(context)),
              config.limits.maxUrlGroups,
            ),
        };
  });
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
