import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { fetchAuditLogs, type AuditEvent } from '../upstash/audit-logs.js';
import { advance, EventCounters, startAt, type Watermark } from './event-rule.js';
import type { SourceKind } from './source.js';

/** The `# HELP` phrase of the account's safety series: they follow `audit_interval` (OWN_SCHEDULES). */
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

/** What the audit log's unit keeps between polls (contract 10.1): where counting stands, and the counts. */
interface AuditMemory {
  watermark: Watermark;
  readonly events: EventCounters;
}

/** The samples of the audit log after a poll: counters, the newest event, and the scan's three series. */
export function auditSamples(account: string, memory: AuditMemory, events: readonly AuditEvent[]): Sample[] {
  const labels = [['account', account]] as const;
  const samples = memory.events.samples(labels);
  let newest: number | undefined;
  for (const event of events) if (newest === undefined || event.time > newest) newest = event.time;
  if (newest !== undefined) samples.push(sample(METRICS.last, labels, newest));
  samples.push(
    sample(METRICS.complete, [...labels, ['state', 'all']], 1),
    sample(METRICS.unread, [...labels, ['state', 'all']], 0),
    sample(METRICS.watermark, [...labels, ['state', 'all']], memory.watermark.at),
  );
  return samples;
}

/**
 * The account's audit log, on `audit_interval` (contract 10.4): the events since the exporter started
 * counted by action and kind of source, on 10.1's rule with times in Unix seconds. Who acted, on
 * what, from where never leave the parser (src/upstash/audit-logs.ts).
 */
export const auditLogs: SourceKind<'audit_logs'> = {
  name: 'audit_logs',
  api: 'management',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, limits, memory, signal, deadline }) {
    // W starts at the second the unit first polls (at start-up, or when a reload adds it): history
    // before it is not counted. Made before the request, so a first poll that fails keeps it.
    const state = memory.recall<AuditMemory>('audit_logs', () => ({
      watermark: startAt(Math.floor(Date.now() / 1000)),
      events: new EventCounters(METRICS.events, ['action', 'via']),
    }));
    const { events, rejected } = await fetchAuditLogs(client, { ...account, signal, deadline });
    const { fresh, next } = advance(state.watermark, events);
    let dropped = 0;
    for (const event of fresh)
      if (state.events.count([event.action, event.via], limits.maxEventSeries)) dropped++;
    state.watermark = next;
    return {
      samples: auditSamples(account.name, state, events),
      rejectedFields: rejected,
      labelValuesDropped: dropped,
    };
  },
};
