import type { Api } from '../upstash/client.js';
import {
  LIMITS,
  onOwnSchedule,
  ownScheduleOf,
  ownSchedules,
  type Limits,
  type OwnSchedule,
  type SourceName,
} from '../vocabulary.js';
import type { Schedule } from './schedule.js';
import type { Config } from './types.js';
import { durationText } from './values.js';

/**
 * A human-readable summary of the configuration, for `--check-config`; secrets show as `<redacted>`, and
 * so does the management e-mail (personal data, and what a mistyped config may hold a token in).
 */
export function summarizeConfig(config: Config): string {
  const lines = [
    `configuration OK (from ${config.origin})`,
    `listen_address: ${config.listenAddress}, metrics at ${config.telemetryPath}`,
    `log_level: ${config.logLevel}, log_format: ${config.logFormat}`,
    `sharding: shard ${config.sharding.shard} of ${config.sharding.total}`,
    `web_config_file: ${config.webConfigFile ?? '(none)'}`,
    `web_enable_lifecycle: ${config.webEnableLifecycle} (POST /-/reload ${config.webEnableLifecycle ? 'reloads the configuration' : 'answers 403'})`,
    `metrics: ${familySummary(config.metrics)}`,
    `http: timeout ${config.http.timeoutMs / 1000}s, retries ${config.http.retries}, concurrency ${config.http.concurrency}, max response size ${config.http.maxBodyBytes} bytes`,
    // Every limit, as the file spells it: a new one shows without an edit here.
    `limits: ${Object.entries(LIMITS)
      .map(([name, limit]) => {
        const value = config.limits[name as keyof typeof LIMITS];
        return `${limit.file} ${'duration' in limit ? durationText(value) : value}`;
      })
      .join(', ')}`,
  ];
  for (const account of config.qstash) {
    const lookback = account.sources.includes('workflow_runs')
      ? `, workflow_lookback ${account.workflowLookbackMs / 1000}s`
      : '';
    lines.push(
      `qstash ${account.name}: ${account.url}, token <redacted>, sources ${account.sources.join(', ')}, schedule "${account.schedule.cron}" (every ${account.schedule.intervalMs / 1000}s)${ownScheduleSummary('qstash', account, config.limits)}${lookback}${labelSummary(account)}, at least ${requestsPerMinute(account)} requests a minute`,
    );
    const deliveries = deliveriesCost(account, config.limits);
    if (deliveries !== undefined) lines.push(`qstash ${account.name}: ${deliveries}`);
  }
  for (const account of config.management) {
    lines.push(
      `management ${account.name}: ${account.url}, email <redacted>, api_key <redacted>, sources ${account.sources.join(', ')}, ${databaseSummary(account)}, schedule "${account.schedule.cron}" (every ${account.schedule.intervalMs / 1000}s)${ownScheduleSummary('management', account, config.limits)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The label values an entry counts by and whether it gives exemplars. The listed values are the
 * operator's own words, so they show; no value read from an event ever reaches the summary.
 */
function labelSummary(account: Config['qstash'][number]): string {
  const labels = account.labels.length > 0 ? `, labels [${account.labels.join(', ')}]` : '';
  return `${labels}${account.exemplars ? '' : ', exemplars off'}`;
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

/** The sources of an entry that run on a schedule of their own, and how often, as the summary says it. */
function ownScheduleSummary<A extends Api>(
  api: A,
  account: {
    readonly sources: readonly SourceName<A>[];
    readonly ownSchedules: Readonly<Record<OwnSchedule<A>, Schedule>>;
  },
  limits: Limits,
): string {
  return ownSchedules(api)
    .flatMap((schedule) =>
      onOwnSchedule(api, schedule)
        .filter((source) => account.sources.includes(source))
        .map((source) => {
          const cost = pagedCost(source, limits);
          const fixed = REQUEST_COST[source]?.(limits);
          const requests =
            cost !== undefined
              ? ` (${cost.least} to ${cost.most} requests a poll)`
              : fixed === undefined
                ? ''
                : ` (${fixed})`;
          return `, ${source} every ${account.ownSchedules[schedule].intervalMs / 1000}s${requests}`;
        }),
    )
    .join('');
}

/**
 * What one poll of an account-safety source costs in requests (docs/configuration.md, What each source
 * costs): the cost the user weighs `audit_interval` against.
 */
const REQUEST_COST: Partial<Record<SourceName, (limits: Limits) => string>> = {
  audit_logs: () => '1 request',
  teams: (limits) => `1 request and 1 per team, at most ${1 + limits.maxTeams}`,
  qstash_egress_ips: () => '1 request',
};

/**
 * What one poll of a paged source costs: one request per state and page (the DLQs have one state;
 * qstash_logs two, ERROR and FAILED; workflow_runs four, its three finished states and RUN_STARTED).
 */
function pagedCost(source: SourceName, limits: Limits): { least: number; most: number } | undefined {
  const states = PAGED_STATES[source];
  if (states === undefined) return undefined;
  const pages = source === 'dlq' || source === 'workflow_dlq' ? limits.maxDlqPages : limits.maxEventPages;
  return { least: states, most: states * pages };
}

/** The states a poll of each paged source reads, one request each at least (by name). */
const PAGED_STATES: Readonly<Record<string, number>> = {
  dlq: 1,
  workflow_dlq: 1,
  qstash_logs: 2,
  qstash_deliveries: 1,
  workflow_runs: 4,
};

/** The daily delivery counts `qstash_deliveries`' cost is given at (docs/configuration.md). */
const DELIVERIES_A_DAY = [1_000, 100_000, 1_000_000] as const;

/**
 * What `qstash_deliveries` costs an entry at 1k, 100k and 1M deliveries a day, or undefined when the
 * entry does not list it (docs/configuration.md, What each source costs): a poll reads the deliveries
 * since W − event_settle, 100 a request, at least one request and at most max_event_pages; what the cap
 * leaves of an events_interval is unread.
 */
function deliveriesCost(account: Config['qstash'][number], limits: Limits): string | undefined {
  if (!(account.sources as readonly string[]).includes('qstash_deliveries')) return undefined;
  const schedule = ownScheduleOf('qstash_logs') as OwnSchedule<'qstash'>;
  const intervalS = account.ownSchedules[schedule].intervalMs / 1000;
  const settleS = limits.eventSettle / 1000;
  const pollsADay = 86_400 / intervalS;
  const costs = DELIVERIES_A_DAY.map((perDay) => {
    const perSecond = perDay / 86_400;
    const wanted = Math.max(1, Math.ceil((perSecond * (intervalS + settleS)) / LOG_PAGE));
    const pages = Math.min(limits.maxEventPages, wanted);
    const unread = Math.max(0, intervalS - (limits.maxEventPages * LOG_PAGE) / perSecond);
    const capped = pages < wanted ? ' (the cap)' : '';
    const gap = unread > 0 ? `, ${Math.round(unread * pollsADay)} s/day unread` : '';
    return `${compact(perDay)}/day: ${pages} request${pages === 1 ? '' : 's'} a poll${capped}, ${Math.round(pages * pollsADay)} requests/day${gap}`;
  });
  return `qstash_deliveries every ${intervalS}s reads ${intervalS + settleS}s of deliveries (event_settle ${settleS}s), 100 a request, at most max_event_pages ${limits.maxEventPages}: ${costs.join('; ')}`;
}

/** Deliveries a request reads (QStash's `count=100`). */
const LOG_PAGE = 100;

/** 1000 as 1k, 1000000 as 1M. */
function compact(n: number): string {
  return n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n);
}

/** The least a qstash entry costs a minute: one request per source and interval, one per state and page. */
function requestsPerMinute(account: Config['qstash'][number]): number {
  let total = 0;
  for (const source of account.sources) {
    const schedule = ownScheduleOf(source);
    const intervalMs =
      schedule === undefined
        ? account.schedule.intervalMs
        : account.ownSchedules[schedule as OwnSchedule<'qstash'>].intervalMs;
    total += ((PAGED_STATES[source] ?? 1) * 60_000) / intervalMs;
  }
  return Math.round(total * 10) / 10;
}

/** Which metric families /metrics shows, as the summary says it. */
function familySummary(selection: Config['metrics']): string {
  if (selection.allow.length === 0 && selection.deny.length === 0) return 'every family';
  const lists = [
    ...(selection.allow.length > 0 ? [`allow ${selection.allow.join(', ')}`] : []),
    ...(selection.deny.length > 0 ? [`deny ${selection.deny.join(', ')}`] : []),
  ];
  return `${lists.join('; ')} (matched against whole family names)`;
}
