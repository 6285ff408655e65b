import type { Config } from './types.js';

/** A human-readable summary of the configuration, for `--check-config`; secrets show as `<redacted>`. */
export function summarizeConfig(config: Config): string {
  const lines = [
    `configuration OK (from ${config.origin})`,
    `listen_address: ${config.listenAddress}`,
    `log_level: ${config.logLevel}, log_format: ${config.logFormat}`,
    `sharding: shard ${config.sharding.shard} of ${config.sharding.total}`,
    `web_config_file: ${config.webConfigFile ?? '(none)'}`,
    `http: timeout ${config.http.timeoutMs / 1000}s, retries ${config.http.retries}, concurrency ${config.http.concurrency}, max response size ${config.http.maxBodyBytes} bytes`,
    `limits: max_flow_control_keys ${config.limits.maxFlowControlKeys}, max_url_groups ${config.limits.maxUrlGroups}, max_commands_per_database ${config.limits.maxCommandsPerDatabase}, max_queues ${config.limits.maxQueues}, max_schedules ${config.limits.maxSchedules}, max_indexes ${config.limits.maxIndexes}`,
  ];
  for (const account of config.qstash) {
    lines.push(
      `qstash ${account.name}: ${account.url}, token <redacted>, sources ${account.sources.join(', ')}, schedule "${account.schedule.cron}" (every ${account.schedule.intervalMs / 1000}s)`,
    );
  }
  for (const account of config.management) {
    lines.push(
      `management ${account.name}: ${account.url}, email ${account.email}, api_key <redacted>, sources ${account.sources.join(', ')}, ${databaseSummary(account)}, schedule "${account.schedule.cron}" (every ${account.schedule.intervalMs / 1000}s)${ownSchedules(account)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Which databases an entry polls, as the summary says it. */
function databaseSummary(account: Config['management'][number]): string {
  if (account.databases !== undefined) return `databases ${account.databases.join(', ')}`;
  const filters = [
    ...(account.include.length > 0 ? [`include ${account.include.join(', ')}`] : []),
    ...(account.exclude.length > 0 ? [`exclude ${account.exclude.join(', ')}`] : []),
  ];
  return `databases discovered${filters.length > 0 ? ` (${filters.join('; ')})` : ' (all)'}`;
}

/** The sources of an entry that run on a schedule of their own, as the summary says it. */
function ownSchedules(account: Config['management'][number]): string {
  return Object.entries(account.sourceSchedules ?? {})
    .filter(([source]) => (account.sources as readonly string[]).includes(source))
    .map(([source, schedule]) => `, ${source} every ${schedule.intervalMs / 1000}s`)
    .join('');
}
