import { counter } from '../metrics/catalogue.js';
import { DELIVERED, LOG_PAGE_SIZE, QSTASH_DELIVERIES } from '../upstash/qstash-logs.js';
import { startState, type EventSeries, type EventState } from './event-rule.js';
import { withListedLabels } from '../upstash/listed-labels.js';
import { labelSamples } from './event-labels.js';
import { counterSamples } from './event-samples.js';
import { EventPoll } from './event-scan.js';
import type { EventEntry } from './event-store.js';
import {
  countedLogEvents,
  destinationBudget,
  DESTINATION_LABELS,
  labelledLogEvents,
  LOG_CAP,
  LOG_SCAN,
} from './qstash-logs.js';
import { counted, polled, type SourceKind } from './source.js';

const NAME = 'qstash_deliveries';

const DELIVERIES = counter(
  'upstash_qstash_deliveries_total',
  `Messages delivered (DELIVERED log events) since the exporter started, by destination (the URL's origin), URL group, queue and schedule; ${LOG_CAP}. ${polled(NAME)}`,
);

/** `qstash_logs`' ERROR state in the same entry: the failed attempts, destination first. */
const LABEL_DELIVERIES = counter(
  'upstash_qstash_label_deliveries_total',
  `Messages delivered (DELIVERED log events) since the exporter started, by the entry's listed Upstash label they carry (a message with two counts under each). ${polled(NAME)}`,
);

const ERRORS = 'qstash_logs/ERROR';
/**
 * The ERROR totals by destination as this source's previous poll saw them, its time as the
 * watermark: kept in the entry's event state as plain data, dropped with the source's states.
 */
const SEEN = `${NAME}/ERROR seen`;
/** UpstashQStashDestinationErrorRatio's defaults (docs/operations.md, The landing page). */
const MAX_ERROR_SHARE = 0.05;
const MIN_ATTEMPTS_A_MINUTE = 5;

/** Per destination (a series' first label), the events counted. */
function byDestination(series: readonly EventSeries[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of series) {
    const destination = s.labels[0] ?? '';
    out.set(destination, (out.get(destination) ?? 0) + s.count);
  }
  return out;
}

/**
 * How many destinations failed more than 5 % of their attempts since this source's previous poll,
 * with at least 5 attempts a minute (docs/operations.md, The landing page): the errors are those
 * `qstash_logs` counted meanwhile, the deliveries those this poll counted. Nothing is said without
 * `qstash_logs`' ERROR state in this entry, nor at the first poll that finds it (a baseline).
 */
function destinationsFailing(
  events: EventEntry,
  delivered: ReadonlyMap<string, number>,
  now: number,
): number {
  const errors = events.states.get(ERRORS);
  const seen = events.states.get(SEEN);
  if (errors === undefined) {
    events.states.delete(SEEN);
    return 0;
  }
  const totals = byDestination(errors.series);
  events.states.set(SEEN, seenState(totals, now));
  if (seen === undefined) return 0;
  const before = byDestination(seen.series);
  const minutes = (now - seen.watermark) / 60_000;
  let failing = 0;
  for (const [destination, total] of totals) {
    const then = before.get(destination) ?? 0;
    // A total below the last one restarted (qstash_logs listed again): counted from 0, as rate() does.
    const failed = total >= then ? total - then : total;
    const attempts = failed + (delivered.get(destination) ?? 0);
    if (attempts >= MIN_ATTEMPTS_A_MINUTE * minutes && failed > MAX_ERROR_SHARE * attempts) failing++;
  }
  return failing;
}

/** The ERROR totals by destination seen at `now`, in the shape of an event state. */
function seenState(totals: ReadonlyMap<string, number>, now: number): EventState {
  return {
    ...startState(now),
    series: [...totals].map(([destination, count]) => ({
      labels: [destination],
      count,
      sum: 0,
      buckets: [],
    })),
  };
}

/**
 * QStash's deliveries by destination (docs/metrics.md, Delivery errors and workflow runs): the
 * DELIVERED log events from W − settle on, read and counted as `qstash_logs` reads its states, on the
 * entry's `events_interval`. Not polled unless listed: a request per 100 deliveries. Its scan series
 * are the QStash log's families with `state="DELIVERED"`, exposed once with `qstash_logs`' (kinds.ts).
 */
export const qstashDeliveries: SourceKind<'qstash_deliveries'> = {
  name: NAME,
  per: 'account',
  metrics: [DELIVERIES, LABEL_DELIVERIES, LOG_SCAN.complete, LOG_SCAN.unread, LOG_SCAN.watermark],
  async poll(request) {
    const { events, account } = request;
    const listed = account.labels ?? [];
    const poll = new EventPoll(request, NAME, LOG_SCAN);
    const before = byDestination(events.states.get(`${NAME}/${DELIVERED}`)?.series ?? []);
    const { result, byLabel } = await poll.scan(
      DELIVERED,
      {
        perSecond: 1000,
        ordered: true,
        pageSize: LOG_PAGE_SIZE,
        timedIdentity: true,
        keys: destinationBudget(events, request.limits.maxEventSeries),
      },
      poll.pages(withListedLabels(QSTASH_DELIVERIES, listed), (from) => ({
        state: DELIVERED,
        fromDate: from,
      })),
      countedLogEvents(DELIVERED),
      listed.length === 0 ? undefined : labelledLogEvents(DELIVERED),
    );
    const delivered = new Map<string, number>();
    for (const [destination, count] of byDestination(result.state.series))
      delivered.set(destination, count - (before.get(destination) ?? 0));
    const failing = destinationsFailing(events, delivered, Date.now());
    const samples = [
      ...counterSamples(DELIVERIES, account.name, DESTINATION_LABELS, result.state.series),
      ...labelSamples(LABEL_DELIVERIES, account.name, listed, byLabel),
    ];
    return poll.result(samples, {
      what: 'log',
      trouble:
        failing === 0
          ? []
          : [
              `${counted(failing, 'destination')} failed more than ${MAX_ERROR_SHARE * 100} % of ${failing === 1 ? 'its' : 'their'} delivery attempts since the previous poll (at least ${MIN_ATTEMPTS_A_MINUTE} attempts a minute)`,
            ],
    });
  },
};
