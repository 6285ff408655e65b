import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { fetchAuditLogs, type AuditEvent } from '../upstash/audit-logs.js';
import { EventScan, startState, type CountedEvent, type EventState } from './event-rule.js';
import { ScanWarnings } from './event-warnings.js';
import type { SourceKind } from './source.js';

/** The `# HELP` phrase of the account's safety series: they follow `audit_interval` (rows' `schedule`). */
export const POLLED_AUDIT =
  'Polled every audit_interval from the Upstash management API, not at scrape time.';

const counter = (name: string, help: string): DataMetric => ({ ...gauge(name, help), type: 'counter' });

const METRICS = {
  events: counter(
    'upstash_audit_events_total',
    `Audit events since the exporter started, by action (action_string) and via (the kind of source: API_KEY, the console's, …; never the key's name). At most limits.max_event_series label sets, the rest under action and via "other". ${POLLED_AUDIT}`,
  ),
  last: gauge(
    'upstash_audit_last_event_timestamp_seconds',
    `Time of the newest event of the audit log's last body, history included; absent when the log is empty (Unix time in seconds). ${POLLED_AUDIT}`,
  ),
  complete: gauge(
    'upstash_audit_log_scan_complete',
    `Whether the last poll read the audit log to the end (1; it is one unpaged body, so always 1). ${POLLED_AUDIT}`,
  ),
  unread: counter(
    'upstash_audit_log_unread_seconds_total',
    `Seconds of the audit log left unread because of a page cap (it is one unpaged body, so always 0). ${POLLED_AUDIT}`,
  ),
  watermark: gauge(
    'upstash_audit_log_watermark_timestamp_seconds',
    `The watermark: events from this time on are counted next (Unix time in seconds). ${POLLED_AUDIT}`,
  ),
};

/** Identities of the settle window kept per `max_event_pages` (the log is unpaged: a page of 100). */
const AUDIT_KEPT_PER_PAGE = 100;

/** Where the entry's event store keeps the audit log's one (source, state): `all`. */
const STATE = 'audit_logs/all';

/** The samples of the audit log after a poll: counters, the newest event, and the scan's three series. */
export function auditSamples(account: string, state: EventState, events: readonly AuditEvent[]): Sample[] {
  const labels = [['account', account]] as const;
  const samples = state.series.map((series) =>
    sample(
      METRICS.events,
      [...labels, ['action', series.labels[0] ?? ''], ['via', series.labels[1] ?? '']],
      series.count,
    ),
  );
  let newest: number | undefined;
  for (const event of events) if (newest === undefined || event.time > newest) newest = event.time;
  if (newest !== undefined) samples.push(sample(METRICS.last, labels, newest));
  const perState = [...labels, ['state', 'all']] as const;
  samples.push(
    sample(METRICS.complete, perState, state.complete ? 1 : 0),
    sample(METRICS.unread, perState, state.unreadSeconds),
    sample(METRICS.watermark, perState, state.watermark),
  );
  return samples;
}

/**
 * The account's audit log, on `audit_interval` (docs/metrics.md, The account's safety): the events since the
 * exporter started counted by action and kind of source, on the event rule with times in whole Unix
 * seconds (W starts at the second the entry began to be polled, the settle window is whole seconds). Who acted, on what, from where never leave the parser
 * (src/upstash/audit-logs.ts).
 */
export const auditLogs: SourceKind<'audit_logs'> = {
  name: 'audit_logs',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, limits, events: entry, signal, deadline }) {
    const { events, rejected } = await fetchAuditLogs(client, { ...account, signal, deadline });
    const state = entry.states.get(STATE) ?? startState(Math.floor(entry.since / 1000));
    // One body holds every event, in no documented order: read unordered, and only the events from
    // W on (the rest of a year of history cannot count, so its identities need not be held).
    const scan = new EventScan(state, {
      perSecond: 1,
      maxSeries: limits.maxEventSeries,
      ordered: false,
      settle: Math.floor(limits.eventSettle / 1000),
      now: Math.floor(Date.now() / 1000),
      // One unpaged body: as many identities as the QStash log's pages would hold.
      maxKept: limits.maxEventPages * AUDIT_KEPT_PER_PAGE,
    });
    const from = scan.from;
    const counted: CountedEvent[] = [];
    for (const event of events) {
      const time = Math.floor(event.time);
      if (time >= from) counted.push({ time, identity: event.id, labels: [event.action, event.via] });
    }
    scan.read(counted);
    const result = scan.finish(true);
    entry.states.set(STATE, result.state);
    const said = new ScanWarnings();
    said.add('all', result);
    return {
      samples: auditSamples(account.name, result.state, events),
      rejectedFields: result.future > 0 ? [...rejected, 'time'] : rejected,
      labelValuesDropped: result.truncated,
      warnings: said.warnings(limits, 'log'),
      logs: said.logs(),
    };
  },
};
