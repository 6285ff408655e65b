import type { Config } from './types.js';

/** A human-readable summary of the configuration, for `--check-config`; secrets show as `<redacted>`. */
export function summarizeConfig(config: Config): string {
  const lines = [
    `configuration OK (from ${config.origin})`,
    `listen_address: ${config.listenAddress}`,
    `log_level: ${config.logLevel}`,
    `web_config_file: ${config.webConfigFile ?? '(none)'}`,
    `http: timeout ${config.http.timeoutMs / 1000}s, retries ${config.http.retries}, concurrency ${config.http.concurrency}, max response size ${config.http.maxBodyBytes} bytes`,
    `limits: max_flow_control_keys ${config.limits.maxFlowControlKeys}, max_url_groups ${config.limits.maxUrlGroups}`,
  ];
  for (const account of config.qstash) {
    lines.push(
      `qstash ${account.name}: ${account.url}, token <redacted>, sources ${account.sources.join(', ')}, schedule "${account.schedule.cron}" (every ${account.schedule.intervalMs / 1000}s)`,
    );
  }
  for (const account of config.management) {
    lines.push(
      `management ${account.name}: ${account.url}, email ${account.email}, api_key <redacted>, databases ${account.databases.join(', ')}, sources ${account.sources.join(', ')}, schedule "${account.schedule.cron}" (every ${account.schedule.intervalMs / 1000}s)`,
    );
  }
  return `${lines.join('\n')}\n`;
}
