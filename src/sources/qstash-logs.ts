import { counter } from '../metrics/catalogue.js';
import { labelKey } from '../metrics/label-limit.js';
import type { Sample } from '../metrics/sample.js';
import {
  LOG_PAGE_SIZE,
  LOG_STATES,
  QSTASH_LOGS,
  type LogEvent,
  type LogState,
} from '../upstash/qstash-logs.js';
import { KeyBudget, type CountedEvent } from './event-rule.js';
import type { EventEntry } from './event-store.js';
import { withListedLabels, type Labelled } from '../upstash/listed-labels.js';
import { labelSamples, perLabel } from './event-labels.js';
import { counterSamples, exemplarId, scanMetrics, type ExemplarSpec } from './event-samples.js';
import { EventPoll } from './event-scan.js';
import { sincePoll } from './event-warnings.js';
import { counted, polled, type SourceKind } from './source.js';

const NAME = 'qstash_logs';

const POLLED = polled(NAME);
/** The scan families of the QStash log, of every state read (`qstash_deliveries`' DELIVERED too). */
export const LOG_SCAN = scanMetrics(NAME, 'qstash_logs', 'QStash log window');
/** What the HELP of a log counter says of its cap on label sets. */
export const LOG_CAP =
  'label sets beyond limits.max_event_series counted under the one whose labels are all "other"';
const ERRORS = counter(
  'upstash_qstash_delivery_errors_total',
  `Failed delivery attempts (ERROR log events) since the exporter started, by destination (the URL's origin), URL group, queue, schedule and response status ("" when none, e.g. a timeout); ${LOG_CAP}. ${POLLED}`,
);
const FAILED = counter(
  'upstash_qstash_deliveries_failed_total',
  `Messages that exhausted their retries (FAILED log events) since the exporter started, by destination (the URL's origin), URL group, queue and schedule; ${LOG_CAP}. ${POLLED}`,
);

const LABEL_ERRORS = counter(
  'upstash_qstash_label_delivery_errors_total',
  `Failed delivery attempts (ERROR) and messages that exhausted their retries (FAILED) since the exporter started, by the entry's listed Upstash label they carry (an event with two counts under each) and state. ${POLLED}`,
);

/** The exemplar label of a log event: its message ID (docs/metrics.md, Exemplars). */
export const MESSAGE_ID = 'message_id';

/** The labels of a log counter after `account`, in the order of {@link countedLogEvent}'s values. */
export const DESTINATION_LABELS = ['destination', 'url_group', 'queue', 'schedule_id'] as const;

/** The counter of each state, and its labels after `account`. */
const COUNTED: Record<LogState, { metric: typeof ERRORS; labels: readonly string[] }> = {
  ERROR: { metric: ERRORS, labels: [...DESTINATION_LABELS, 'code'] },
  FAILED: { metric: FAILED, labels: DESTINATION_LABELS },
};

/**
 * A log event of `state` as the event rule counts it. Its identity is `messageId` + `time` + `state`
 * (docs/metrics.md, Event counters): held as the message, the rule told that the time is part of it
 * (`timedIdentity`), and a scan reads one state; turning 10,000 times into text cost as much as
 * reading the events (BENCHMARKS.md, "The event window, read by hand"). Names and IDs are kept as
 * label keys (a long one as its head and hash): a poll holds its label sets and the identities kept,
 * not the 80,000-character names a page may carry.
 */
export function countedLogEvent(event: LogEvent, state: string, exemplars = false): CountedEvent {
  const labels = [
    labelKey(event.destination ?? ''),
    labelKey(event.topicName ?? ''),
    labelKey(event.queueName ?? ''),
    labelKey(event.scheduleId ?? ''),
  ];
  // A status is a number: short, never cut.
  if (state === 'ERROR') labels.push(event.responseStatus === undefined ? '' : String(event.responseStatus));
  const exemplar = exemplars ? exemplarId(MESSAGE_ID, event.messageId) : undefined;
  return {
    time: event.time,
    identity: labelKey(event.messageId),
    labels,
    ...(exemplar !== undefined && { exemplar }),
  };
}

/** A page's log events of `state`, once per listed label each carries (docs/metrics.md, Your own labels). */
export function labelledLogEvents(state: string): (events: readonly Labelled<LogEvent>[]) => CountedEvent[] {
  return (events) =>
    events
      .filter((e) => e.state === undefined || e.state === state)
      .flatMap((e) => perLabel(countedLogEvent(e, state), e.labels));
}

/**
 * A page's log events of `state` as the event rule counts them. An event of another state than asked
 * for (an upstream that ignored the filter) is not this state's: it is neither counted nor moves W.
 */
export function countedLogEvents(
  state: string,
  exemplars = false,
): (events: readonly LogEvent[]) => CountedEvent[] {
  return (events) =>
    events
      .filter((e) => e.state === undefined || e.state === state)
      .map((e) => countedLogEvent(e, state, exemplars));
}

/** The states whose label sets share one budget of destinations: errors, failures and deliveries. */
const DESTINATION_STATES = ['qstash_logs/ERROR', 'qstash_logs/FAILED', 'qstash_deliveries/DELIVERED'];

/** The entry's budget of destinations, by the sources that share it. */
const DESTINATION_BUDGET = 'qstash_logs qstash_deliveries';

/**
 * The one budget of destinations of an entry's QStash log counters (docs/metrics.md, Event
 * counters): a destination is under its name in the errors, the failures and the deliveries, or
 * `other` in all, so that the error ratio of a destination is never cut apart.
 */
export function destinationBudget(events: EventEntry, maxSeries: number): KeyBudget {
  // Kept in the entry, not derived from the series: the two sources may poll at once.
  let kept = events.budgets.get(DESTINATION_BUDGET);
  if (kept === undefined) {
    kept = { admitted: new Set(), said: new Set() };
    events.budgets.set(DESTINATION_BUDGET, kept);
  }
  return new KeyBudget(
    maxSeries,
    DESTINATION_STATES.map((key) => events.states.get(key)?.series ?? []),
    kept,
  );
}

/**
 * QStash's delivery errors and failures by destination (docs/metrics.md, Delivery errors and workflow runs): per state, the log
 * events from W − settle on (`fromDate`, newest first, `count=100` a page, at most max_event_pages
 * pages), each counted once by the event rule (event-rule.ts), on the entry's `events_interval`.
 */
export const qstashLogs: SourceKind<'qstash_logs'> = {
  name: NAME,
  per: 'account',
  metrics: [ERRORS, FAILED, LABEL_ERRORS, LOG_SCAN.complete, LOG_SCAN.unread, LOG_SCAN.watermark],
  async poll(request) {
    const { account } = request;
    const poll = new EventPoll(request, NAME, LOG_SCAN);
    const exemplars = account.exemplars !== false;
    const listed = account.labels ?? [];
    const logs = withListedLabels(QSTASH_LOGS, listed);
    const samples: Sample[] = [];
    const failed: string[] = [];
    const keys = destinationBudget(request.events, request.limits.maxEventSeries);
    for (const state of LOG_STATES) {
      const { result, first, byLabel } = await poll.scan(
        state,
        { perSecond: 1000, ordered: true, pageSize: LOG_PAGE_SIZE, timedIdentity: true, keys },
        poll.pages(logs, (from) => ({ state, fromDate: from })),
        // Only the errors carry exemplars (docs/metrics.md, Exemplars).
        countedLogEvents(state, exemplars && state === 'ERROR'),
        listed.length === 0 ? undefined : labelledLogEvents(state),
      );
      // Messages that exhausted their retries are lost work: said; a failed attempt is retried.
      if (state === 'FAILED' && result.counted > 0)
        failed.push(sincePoll(`${counted(result.counted, 'delivery', 'deliveries')} FAILED`, first));
      const { metric, labels } = COUNTED[state];
      const spec: ExemplarSpec | undefined =
        exemplars && state === 'ERROR' ? { label: MESSAGE_ID, perSecond: 1000 } : undefined;
      samples.push(...counterSamples(metric, account.name, labels, result.state.series, [], spec));
      samples.push(...labelSamples(LABEL_ERRORS, account.name, listed, byLabel, [['state', state]]));
    }
    return poll.result(samples, { what: 'log', trouble: failed });
  },
};
