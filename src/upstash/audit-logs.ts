import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing } from './schema.js';
import { entryObject, isNumber, number, optionalText, textField, type Tolerated } from './tolerance.js';

/** One audit event as the exporter keeps it: when, its identity, what was done and through what. */
export interface AuditEvent {
  /** The event's `log_id`. */
  readonly id: string;
  /** Unix seconds (`timestamp`). */
  readonly time: number;
  /** `action_string` (`Delete Team`); '' when absent. */
  readonly action: string;
  /** `source` up to its first ` - ` (`API_KEY`, not the key's name after it); '' when absent. */
  readonly via: string;
}

// An audit event names who acted (`actor`, `customer_id`: e-mails), what was touched (`entity`,
// `secondary_entity`, `third_entity`: names of the customer's resources), the caller's `ip`, and in
// `source` the name of the API key used. The schema names only the four fields read; zod drops every
// other key at parsing, and `source` is cut to its kind here, so none of that ever reaches an object
// of ours, a log line or an error (whose messages quote no value). The time and the identity are
// what the event rule counts by (docs/metrics.md, The account's safety): missing or of the wrong
// type, the whole body is invalid.
export const auditEvent = z.object({
  log_id: z.string().min(1),
  timestamp: number,
  action_string: optionalText,
  source: optionalText,
});

/** The kind of source of an event: `source` up to its first ` - ` (the key's name after it is dropped). */
export function viaOf(source: string): string {
  const cut = source.indexOf(' - ');
  return (cut === -1 ? source : source.slice(0, cut)).trim();
}

/** An audit event as kept, from its parsed fields. */
export function toAuditEvent(e: Tolerated<z.output<typeof auditEvent>>): AuditEvent {
  return { id: e.log_id, time: e.timestamp, action: e.action_string ?? '', via: viaOf(e.source ?? '') };
}

/** {@link auditEvent} and {@link toAuditEvent} by hand (schema.ts, EntryReader): the same verdicts and names. */
export function readAuditEvent(raw: unknown, rejected: Set<string>): AuditEvent | undefined {
  const entry = entryObject(raw);
  if (entry === undefined) return undefined;
  const { log_id: id, timestamp } = entry;
  if (typeof id !== 'string' || id === '' || !isNumber(timestamp)) return undefined;
  const action = textField(entry, 'action_string', rejected);
  const source = textField(entry, 'source', rejected);
  return { id, time: timestamp, action: action ?? '', via: viaOf(source ?? '') };
}

/**
 * Parses the audit log (one bare array, the account's whole retained history), in slices so that
 * scrapes are answered while a year of events is validated. A bad optional field is named in
 * `rejected` and left out alone.
 */
export async function parseAuditLogs(
  json: unknown,
  url = 'auditlogs',
): Promise<{ events: AuditEvent[]; rejected: readonly string[] }> {
  const { entries, rejected } = await parseListing(json, url, {
    entry: auditEvent,
    toEntry: toAuditEvent,
    read: readAuditEvent,
  });
  return { events: entries, rejected };
}

/**
 * GET `{url}/auditlogs`: the one Developer API path without `/v2` (the reference's `servers`
 * override). One unpaged body, within `http.max_response_size` like any other.
 */
export async function fetchAuditLogs(
  client: UpstashClient,
  target: Target,
): Promise<{ events: AuditEvent[]; rejected: readonly string[] }> {
  const url = `${target.baseUrl}/auditlogs`;
  return parseAuditLogs(await client.getJson({ ...target, url }), url);
}
