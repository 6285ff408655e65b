import { counter, gauge } from '../metrics/catalogue.js';
import { sample } from '../metrics/sample.js';
import { fetchAuditLogs, type AuditEvent } from '../upstash/audit-logs.js';
import { counterSamples, scanMetrics } from './event-samples.js';
import { EventPoll } from './event-scan.js';
import { timeBounds, timeVerdict } from './event-time.js';
import { polled, type SourceKind } from './source.js';

const NAME = 'audit_logs';
const POLLED = polled(NAME);

const EVENTS = counter(
  'upstash_audit_events_total',
  `Audit events since the exporter started, by action (action_string) and via (the kind of source: API_KEY, the console's, …; never the key's name). At most limits.max_event_series label sets, the rest under action and via "other". ${POLLED}`,
);
const LAST = gauge(
  'upstash_audit_last_event_timestamp_seconds',
  `Time of the newest event of the audit log's last body, history included; absent when the log is empty (Unix time in seconds). ${POLLED}`,
);
const SCAN = scanMetrics(NAME, 'audit_log', 'audit log', 'body');

/** Identities of the settle window kept per `max_event_pages` (the log is unpaged: a page of 100). */
const AUDIT_KEPT_PER_PAGE = 100;

/**
 * The time of the newest of the audit log's events, history included, of those whose time is a time
 * (docs/metrics.md, Event counters); undefined when there is none.
 */
function newestOf(events: readonly AuditEvent[]): number | undefined {
  const bounds = timeBounds(1, Math.floor(Date.now() / 1000));
  let newest: number | undefined;
  for (const event of events)
    if (timeVerdict(event.time, bounds) === 'ok' && (newest === undefined || event.time > newest))
      newest = event.time;
  return newest;
}

/**
 * The account's audit log, on `audit_interval` (docs/metrics.md, The account's safety): the events
 * since the exporter started counted by action and kind of source, on the event rule with times in
 * whole Unix seconds (W starts at the second the entry began to be polled, the settle window is
 * whole seconds). Who acted, on what, from where never leave the parser (src/upstash/audit-logs.ts).
 */
export const auditLogs: SourceKind<'audit_logs'> = {
  name: NAME,
  per: 'account',
  metrics: [EVENTS, LAST, SCAN.complete, SCAN.unread, SCAN.watermark],
  async poll(request) {
    const { client, account, signal, deadline } = request;
    const { events, rejected } = await fetchAuditLogs(client, { ...account, signal, deadline });
    const poll = new EventPoll(request, NAME, SCAN);
    for (const field of rejected) poll.rejected.add(field);
    // One body holds every event, in no documented order: read unordered, as one page.
    const { result } = await poll.scan<AuditEvent>(
      'all',
      { perSecond: 1, ordered: false, pageSize: AUDIT_KEPT_PER_PAGE },
      (_from, read) => {
        read(events);
        return Promise.resolve(true);
      },
      (entries) =>
        entries.map((event) => ({
          time: Math.floor(event.time),
          identity: event.id,
          labels: [event.action, event.via],
        })),
    );
    const samples = counterSamples(EVENTS, account.name, ['action', 'via'], result.state.series);
    const newest = newestOf(events);
    if (newest !== undefined) samples.push(sample(LAST, [['account', account.name]], newest));
    return poll.result(samples, { what: 'log' });
  },
};
