import { z } from 'zod';
import type { EventList } from './event-paths.js';
import {
  entryObject,
  isNumber,
  number,
  numberField,
  optional,
  textField,
  type Tolerated,
} from './tolerance.js';
import { originOf } from './url-origin.js';

/**
 * What the exporter reads of a QStash log event: when, which message, in which state, and where it
 * was going (docs/metrics.md, Delivery errors and workflow runs). Nothing else of it is kept.
 */
export interface LogEvent {
  /** Unix ms; NaN where upstream's is not a number. */
  readonly time: number;
  readonly messageId: string;
  readonly state?: string | undefined;
  /** The destination's origin (`scheme://host[:port]`), never its path, query or user info. */
  readonly destination?: string | undefined;
  readonly topicName?: string | undefined;
  readonly queueName?: string | undefined;
  readonly scheduleId?: string | undefined;
  readonly responseStatus?: number | undefined;
}

/** Events Upstash returns per page at most (`count=100`). */
export const LOG_PAGE_SIZE = 100;

/** The states counted, as they are sent upstream. */
export const LOG_STATES = ['ERROR', 'FAILED'] as const;
export type LogState = (typeof LOG_STATES)[number];

/** The state of a message delivered, as sent upstream (`qstash_deliveries`). */
export const DELIVERED = 'DELIVERED';

const name = optional(z.string().transform((text) => (text === '' ? undefined : text)));

// An event carries the message's headers and body, the response's body and headers, the error text,
// callback URLs and labels: any may hold a customer's secret. Only the fields named here are parsed
// (zod drops every other key); the URL becomes its origin in the transform itself. A `messageId` that
// is not text fails the page. A `time` that is not a number is read as NaN, for the event rule to
// refuse as it refuses any time that is no time, once, without ending the scan (docs/metrics.md,
// Event counters); a fractional time is floored (times are whole milliseconds).
const logEvent = z.object({
  time: z.unknown().optional().transform(timeOf),
  messageId: z.string(),
  state: name,
  url: optional(z.string().transform(originOf)),
  topicName: name,
  queueName: name,
  scheduleId: name,
  responseStatus: optional(number.int()),
});

// A delivery is a log event read without its response status (it succeeded): a wrong one is then not
// said rejected of a field that is not exported (docs/metrics.md, Delivery errors and workflow runs).
const deliveryEvent = logEvent.omit({ responseStatus: true });

function toLogEvent({
  url,
  ...event
}: Tolerated<z.output<typeof deliveryEvent>> & Pick<LogEvent, 'responseStatus'>): LogEvent {
  return { ...event, destination: url };
}

/**
 * {@link logEvent} and {@link toLogEvent} by hand (schema.ts, EntryReader): the same fields, the same
 * verdicts, the same names rejected in the same order; undefined when the identity is bad, for the
 * schema to say why.
 */
export function readLogEvent(raw: unknown, rejected: Set<string>): LogEvent | undefined {
  return readEvent(raw, rejected, true);
}

/** {@link deliveryEvent} and {@link toLogEvent} by hand, as {@link readLogEvent}. */
export function readDeliveryEvent(raw: unknown, rejected: Set<string>): LogEvent | undefined {
  return readEvent(raw, rejected, false);
}

function readEvent(raw: unknown, rejected: Set<string>, withStatus: boolean): LogEvent | undefined {
  const entry = entryObject(raw);
  if (entry === undefined) return undefined;
  const { time, messageId } = entry;
  if (typeof messageId !== 'string') return undefined;
  const state = nameField(entry, 'state', rejected);
  const url = textField(entry, 'url', rejected);
  const topicName = nameField(entry, 'topicName', rejected);
  const queueName = nameField(entry, 'queueName', rejected);
  const scheduleId = nameField(entry, 'scheduleId', rejected);
  return {
    time: timeOf(time),
    messageId,
    state,
    topicName,
    queueName,
    scheduleId,
    ...(withStatus && { responseStatus: numberField(entry, 'responseStatus', rejected, true) }),
    destination: url === undefined ? undefined : originOf(url),
  };
}

/** An event's time in whole Unix ms, or NaN where it is not a number (the rule refuses it). */
function timeOf(time: unknown): number {
  return isNumber(time) ? Math.floor(time) : Number.NaN;
}

/** {@link name} by hand: a text field, '' read as absent. */
function nameField(entry: Readonly<Record<string, unknown>>, field: string, rejected: Set<string>) {
  const text = textField(entry, field, rejected);
  return text === '' ? undefined : text;
}

const LOG_PAGES = {
  // The documentation says `logs`, the SDK reads `events`: either, on either path.
  listFields: ['logs', 'events'],
  count: LOG_PAGE_SIZE,
  entry: logEvent,
  toEntry: toLogEvent,
  read: readLogEvent,
} as const;

/** `/v2/logs` (documented), `/v2/events` (what `@upstash/qstash` calls). */
export const QSTASH_LOGS: EventList<typeof logEvent, LogEvent> = {
  documented: { ...LOG_PAGES, path: '/v2/logs' },
  sdk: { ...LOG_PAGES, path: '/v2/events' },
};

const DELIVERY_PAGES = { ...LOG_PAGES, entry: deliveryEvent, read: readDeliveryEvent } as const;

/** The same log read for deliveries (`state=DELIVERED`), without their response status. */
export const QSTASH_DELIVERIES: EventList<typeof deliveryEvent, LogEvent> = {
  documented: { ...DELIVERY_PAGES, path: '/v2/logs' },
  sdk: { ...DELIVERY_PAGES, path: '/v2/events' },
};
