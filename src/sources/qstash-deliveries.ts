import { counter } from '../metrics/catalogue.js';
import { DELIVERED, LOG_PAGE_SIZE, QSTASH_DELIVERIES } from '../upstash/qstash-logs.js';
import { counterSamples } from './event-samples.js';
import { EventPoll } from './event-scan.js';
import { countedLogEvents, DESTINATION_LABELS, LOG_CAP, LOG_SCAN } from './qstash-logs.js';
import { polled, type SourceKind } from './source.js';

const NAME = 'qstash_deliveries';

const DELIVERIES = counter(
  'upstash_qstash_deliveries_total',
  `Messages delivered (DELIVERED log events) since the exporter started, by destination (the URL's origin), URL group, queue and schedule; ${LOG_CAP}. ${polled(NAME)}`,
);

/**
 * QStash's deliveries by destination (docs/metrics.md, Delivery errors and workflow runs): the
 * DELIVERED log events from W − settle on, read and counted as `qstash_logs` reads its states, on the
 * entry's `events_interval`. Not polled unless listed: a request per 100 deliveries. Its scan series
 * are the QStash log's families with `state="DELIVERED"`, exposed once with `qstash_logs`' (kinds.ts).
 */
export const qstashDeliveries: SourceKind<'qstash_deliveries'> = {
  name: NAME,
  per: 'account',
  metrics: [DELIVERIES, LOG_SCAN.complete, LOG_SCAN.unread, LOG_SCAN.watermark],
  async poll(request) {
    const poll = new EventPoll(request, NAME, LOG_SCAN);
    const { result } = await poll.scan(
      DELIVERED,
      { perSecond: 1000, ordered: true, pageSize: LOG_PAGE_SIZE },
      poll.pages(QSTASH_DELIVERIES, (from) => ({ state: DELIVERED, fromDate: from })),
      countedLogEvents(DELIVERED),
    );
    const samples = counterSamples(DELIVERIES, request.account.name, DESTINATION_LABELS, result.state.series);
    return poll.result(samples, { what: 'log' });
  },
};
