import { counter } from '../metrics/catalogue.js';
import { labelKey } from '../metrics/label-limit.js';
import type { Sample } from '../metrics/sample.js';
import { scanEvents } from '../upstash/event-paths.js';
import {
  LOG_PAGE_SIZE,
  LOG_STATES,
  QSTASH_LOGS,
  type LogEvent,
  type LogState,
} from '../upstash/qstash-logs.js';
import { EventScan, startState, type CountedEvent } from './event-rule.js';
import { counterSamples, POLLED_EVENTS, scanMetrics, scanSamples } from './event-samples.js';
import { ScanWarnings, sincePoll } from './event-warnings.js';
import { counted, type SourceKind } from './source.js';

const NAME = 'qstash_logs';

const SCAN = scanMetrics('qstash_logs', 'QStash log window', POLLED_EVENTS);
const CAP = 'label sets beyond limits.max_event_series counted under the one whose labels are all "other"';
const ERRORS = counter(
  'upstash_qstash_delivery_errors_total',
  `Failed delivery attempts (ERROR log events) since the exporter started, by destination (the URL's origin), URL group, queue, schedule and response status ("" when none, e.g. a timeout); ${CAP}. ${POLLED_EVENTS}`,
);
const FAILED = counter(
  'upstash_qstash_deliveries_failed_total',
  `Messages that exhausted their retries (FAILED log events) since the exporter started, by destination (the URL's origin), URL group, queue and schedule; ${CAP}. ${POLLED_EVENTS}`,
);

/** The counter of each state, and its labels after `account`. */
const COUNTED: Record<LogState, { metric: typeof ERRORS; labels: readonly string[] }> = {
  ERROR: { metric: ERRORS, labels: ['destination', 'url_group', 'queue', 'schedule_id', 'code'] },
  FAILED: { metric: FAILED, labels: ['destination', 'url_group', 'queue', 'schedule_id'] },
};

/**
 * A log event of `state` as the event rule counts it. Its identity is `messageId` + `time` + `state`
 * (docs/metrics.md, Event counters), held as the message alone: the rule compares identities only
 * among the events of one instant (event-rule.ts), and a scan reads one state; the time and state
 * were the same in every identity compared, and turning 10,000 times into text cost as much as
 * reading the events (BENCHMARKS.md, the event window). Names and IDs are kept as label keys (a long one as its head and
 * hash): a poll holds its label sets and the identities at W, not the 80,000-character names a page
 * may carry.
 */
export function countedLogEvent(event: LogEvent, state: LogState): CountedEvent {
  const labels = [
    labelKey(event.destination ?? ''),
    labelKey(event.topicName ?? ''),
    labelKey(event.queueName ?? ''),
    labelKey(event.scheduleId ?? ''),
  ];
  // A status is a number: short, never cut.
  if (state === 'ERROR') labels.push(event.responseStatus === undefined ? '' : String(event.responseStatus));
  return {
    time: event.time,
    identity: labelKey(event.messageId),
    labels,
  };
}

/**
 * QStash's delivery errors and failures by destination (docs/metrics.md, Delivery errors and workflow runs): per state, the log
 * events from W − settle on (`fromDate`, newest first, `count=100` a page, at most max_event_pages
 * pages), each counted once by the event rule (event-rule.ts), on the entry's `events_interval`.
 */
export const qstashLogs: SourceKind<'qstash_logs'> = {
  name: NAME,
  per: 'account',
  metrics: [ERRORS, FAILED, SCAN.complete, SCAN.unread, SCAN.watermark],
  async poll({ client, account, limits, signal, deadline, events }) {
    const rejected = new Set<string>();
    let truncated = 0;
    const samples: Sample[] = [];
    const scans: Sample[] = [];
    const said = new ScanWarnings();
    const failed: string[] = [];
    for (const state of LOG_STATES) {
      const key = `${NAME}/${state}`;
      const before = events.states.get(key);
      const scan = new EventScan(before ?? startState(events.since), {
        perSecond: 1000,
        maxSeries: limits.maxEventSeries,
        ordered: true,
        settle: limits.eventSettle,
        now: Date.now(),
        maxKept: limits.maxEventPages * LOG_PAGE_SIZE,
      });
      const paging = await scanEvents(
        client,
        QSTASH_LOGS,
        events.sdkPaths.has(NAME),
        {
          ...account,
          maxPages: limits.maxEventPages,
          signal,
          deadline,
          query: { state, fromDate: scan.from },
        },
        // An event of another state than asked for (an upstream that ignored the filter) is not this
        // state's: it is neither counted nor moves W.
        (page) =>
          scan.read(
            page.entries
              .filter((e) => e.state === undefined || e.state === state)
              .map((e) => countedLogEvent(e, state)),
          )
            ? 'more'
            : 'stop',
      );
      if (paging.sdk) events.useSdkPath(NAME, QSTASH_LOGS.sdk.path);
      for (const field of paging.rejected) rejected.add(field);
      const result = scan.finish(paging.end === 'last_page');
      if (result.future > 0) rejected.add('time');
      events.states.set(key, result.state);
      truncated += result.truncated;
      said.add(state, result);
      // Messages that exhausted their retries are lost work: said; a failed attempt is retried.
      if (state === 'FAILED' && result.counted > 0)
        failed.push(
          sincePoll(`${counted(result.counted, 'delivery', 'deliveries')} FAILED`, before === undefined),
        );
      const { metric, labels } = COUNTED[state];
      samples.push(...counterSamples(metric, account.name, labels, result.state.series));
      scans.push(...scanSamples(SCAN, account.name, state, result.state, 1000));
    }
    return {
      samples: [...samples, ...scans],
      rejectedFields: [...rejected],
      ...(truncated > 0 && { labelValuesDropped: truncated }),
      warnings: [...failed, ...said.warnings(limits, 'log')],
      logs: said.logs(),
    };
  },
};
