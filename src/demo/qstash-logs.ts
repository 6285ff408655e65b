import { jsonAnswer, type Answer } from './answer.js';
import { defineEndpoint, type Endpoint, type EndpointContext } from './endpoint.js';
import {
  badTimeParam,
  eventPage,
  inUnit,
  shown,
  timeParam,
  type EventDating,
  type Timed,
  type TimeUnit,
} from './event-pages.js';
import { noise } from './noise.js';
import type { RouteParams } from './paths.js';

/**
 * What every simulated log event and workflow run carries in its URLs, headers, bodies, error texts
 * and labels: the exporter must never show it (tests look for it in /metrics, pages and logs).
 */
export const DEMO_EVENT_SECRET = 'demo-event-secret-K3p9MARK';
/** The caller IP every simulated event carries; never shown either. */
export const DEMO_EVENT_CALLER_IP = '198.51.100.23';

/**
 * The Upstash labels the demo's messages and runs carry besides the secret one (docs/metrics.md,
 * Your own labels), and the demo's configuration lists: orders' messages are `checkout`, billing's
 * every other slot `tenant-a` and `checkout` both, the nightly cron's the older `label` string
 * `tenant-a`; every labelled message also carries one holding the secret, never listed.
 */
export const DEMO_LABELS = ['checkout', 'tenant-a'] as const;

/** The labels of a message of destination `d` in `slot`, as the log event carries them. */
function labelsOf(d: number, slot: number): Record<string, unknown> {
  const secret = `customer-${DEMO_EVENT_SECRET}`;
  if (d === 0) return { labels: ['checkout', secret] };
  if (d === 1) return { labels: slot % 2 === 0 ? ['tenant-a', secret, 'checkout'] : [secret] };
  if (d === 2) return { label: 'tenant-a' };
  return { labels: [secret] };
}

/** One event slot: each destination fails at most once per slot. */
const SLOT_MS = 10_000;
/** How far back the log goes when no fromDate is asked. */
const RETENTION_MS = 6 * 3_600_000;
/** Events a page holds at most, as QStash's `count` allows. */
const MAX_COUNT = 100;

/**
 * The simulated destinations: where they are, what they are reached through, how they fail, and how
 * many messages they take in a slot (DELIVERED). With the errors, that makes each one's error ratio
 * (docs/metrics.md, Delivery errors and workflow runs): orders ~12 %, above the alert's 5 %; billing
 * and the nightly cron ~3 %; the gone endpoint delivers nothing, 100 % of under 2 attempts a minute,
 * below the alert's floor.
 */
export const DEMO_DESTINATIONS = [
  {
    url: `https://api.example.com/hooks/orders?token=${DEMO_EVENT_SECRET}`,
    queueName: 'orders',
    code: 500,
    errors: 0.8,
    failures: 0.1,
    delivered: 6,
  },
  {
    url: `https://hooks.billing.example.net:8443/in/${DEMO_EVENT_SECRET}?sig=${DEMO_EVENT_SECRET}`,
    topicName: 'billing-webhooks',
    code: 503,
    errors: 0.3,
    failures: 0.03,
    delivered: 12,
  },
  // A timeout: no response status.
  {
    url: `https://ops:${DEMO_EVENT_SECRET}@cron.example.org/nightly/run`,
    scheduleId: 'scd_demo_nightly',
    code: undefined,
    errors: 0.15,
    failures: 0.05,
    delivered: 5,
  },
  {
    url: `https://legacy.example.com/gone#${DEMO_EVENT_SECRET}`,
    code: 404,
    errors: 0.3,
    failures: 0.3,
    delivered: 0,
  },
] as const;

type DemoDestination = (typeof DEMO_DESTINATIONS)[number];

/** A span of time in which a destination's deliveries fail at `share` (a fault the tests turn on). */
interface FailingSpan {
  readonly from: number;
  until: number;
  readonly share: number;
}

/** Where the opening's delivery errs and fails: a destination of its own, no other events' labels. */
const OPENING_DESTINATION = DEMO_DESTINATIONS[1];
/** The opening's messages carry both listed labels: every label family from the first poll. */
const OPENING_LABELS = { labels: [...DEMO_LABELS, `customer-${DEMO_EVENT_SECRET}`] };

/** A log event as QStash writes it, every documented field filled (secrets included). */
function logEvent(
  time: number,
  messageId: string,
  state: string,
  destination: DemoDestination,
  labels: Record<string, unknown> = { labels: [`customer-${DEMO_EVENT_SECRET}`] },
): Record<string, unknown> {
  const { url, code } = destination;
  return {
    time,
    messageId,
    state,
    url,
    ...('topicName' in destination && { topicName: destination.topicName, endpointName: 'primary' }),
    ...('queueName' in destination && { queueName: destination.queueName }),
    ...('scheduleId' in destination && { scheduleId: destination.scheduleId }),
    header: { Authorization: [`Bearer ${DEMO_EVENT_SECRET}`], 'Upstash-Forward-Key': [DEMO_EVENT_SECRET] },
    body: Buffer.from(JSON.stringify({ card: DEMO_EVENT_SECRET })).toString('base64'),
    ...(state !== 'DELIVERED' && {
      error: `POST ${url} failed: ${code ?? 'timeout'} (${DEMO_EVENT_SECRET})`,
    }),
    ...((state === 'DELIVERED' || code !== undefined) && {
      responseStatus: state === 'DELIVERED' ? 200 : code,
      responseBody: Buffer.from(`{"echo":"${DEMO_EVENT_SECRET}"}`).toString('base64'),
      responseHeaders: { 'Set-Cookie': [`session=${DEMO_EVENT_SECRET}`] },
    }),
    callback: `https://cb.example.com/ok?key=${DEMO_EVENT_SECRET}`,
    callbackHeaders: { Authorization: [`Basic ${DEMO_EVENT_SECRET}`] },
    failureCallback: `https://cb.example.com/failed?key=${DEMO_EVENT_SECRET}`,
    callerIp: DEMO_EVENT_CALLER_IP,
    ...labels,
    maxRetries: 3,
    method: 'POST',
    timeout: 30_000,
  };
}

/**
 * The simulated QStash log: in each 10-second slot, each destination delivers its messages
 * (DELIVERED), fails a delivery (ERROR) with its own odds and code, and now and then a message
 * exhausts its retries (FAILED). Two destinations fail in the same millisecond of a slot (events at
 * exactly one time). At the opening (opening.ts), one message of the billing destination errs and
 * fails. While a destination is set failing, that share of its deliveries errs instead. Served newest
 * first; a `state` asked filters.
 */
export class QstashLogs implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #listField: 'logs' | 'events';
  #override: readonly Record<string, unknown>[] | null = null;
  #dating: EventDating = 'visible';
  /** The events (by messageId) whose `time` is written in another unit (a fault the tests turn on). */
  #units: ReadonlyMap<string, TimeUnit> = new Map();
  /** Per destination (its index), the spans in which it fails, oldest first; the last may be open. */
  readonly #failing = new Map<number, FailingSpan[]>();

  constructor(ctx: EndpointContext, listField: 'logs' | 'events') {
    this.#ctx = ctx;
    this.#listField = listField;
  }

  /**
   * From now on, `share` (0–1) of the deliveries to a destination (its URL, as in DEMO_DESTINATIONS)
   * err with its code instead; `null` makes it healthy again. What was served before stays as it was.
   */
  setDestinationFailing(url: string, share: number | null): void {
    const index = DEMO_DESTINATIONS.findIndex((d) => d.url === url);
    if (index === -1) throw new Error('not a simulated destination');
    const now = this.#ctx.now();
    const spans = this.#failing.get(index) ?? [];
    const open = spans.at(-1);
    if (open?.until === Infinity) open.until = now;
    if (share !== null) spans.push({ from: now, until: Infinity, share });
    this.#failing.set(index, spans);
  }

  /** The share of a destination's deliveries that err at `time` (0 unless set failing then). */
  #failingShare(index: number, time: number): number {
    const span = this.#failing.get(index)?.find((s) => time >= s.from && time < s.until);
    return span?.share ?? 0;
  }

  /**
   * Serve these events (QStash's shape, a `time` each) instead of generated ones; `null` restores.
   * The simulator sets both paths' alike: they serve one log.
   */
  setOverride(events: readonly Record<string, unknown>[] | null): void {
    this.#override = events;
  }

  /** Whether events dated after the clock are served (a fault: event-pages.ts, EventDating). */
  setDating(dating: EventDating): void {
    this.#dating = dating;
  }

  /**
   * From now on, write the `time` of the events with these messageIds in another unit, each still
   * ordered and filtered by its true time; `null` writes every time in milliseconds again.
   */
  setTimeUnits(units: Readonly<Record<string, TimeUnit>> | null): void {
    this.#units = new Map(Object.entries(units ?? {}));
  }

  /**
   * Every event with time in [from, to] (generated, or the override). Given the one state a caller
   * keeps, deliveries that cannot be of it are not generated (they are most of the log).
   */
  eventsBetween(from: number, to: number, kept?: string): Timed[] {
    const override = this.#override;
    if (override !== null)
      return override
        .map((body) => ({ at: Number(body.time), body }))
        .filter(({ at }) => at >= from && at <= to);
    const out: Timed[] = [];
    // The opening (opening.ts): one message of the billing destination errs and fails for good, and
    // another is delivered.
    const opened = this.#ctx.opening.at();
    if (opened !== undefined && opened >= from && opened <= to) {
      for (const state of ['ERROR', 'FAILED'])
        out.push({
          at: opened,
          body: logEvent(opened, 'msg_demo_opening', state, OPENING_DESTINATION, OPENING_LABELS),
        });
      out.push({
        at: opened,
        body: logEvent(
          opened,
          'msg_demo_opening_delivered',
          'DELIVERED',
          OPENING_DESTINATION,
          OPENING_LABELS,
        ),
      });
    }
    const seed = this.#ctx.seed;
    for (let slot = Math.floor(from / SLOT_MS); slot * SLOT_MS <= to; slot++) {
      DEMO_DESTINATIONS.forEach((destination, d) => {
        // Destinations 0 and 1 share their millisecond of the slot.
        const at = (salt: number) =>
          slot * SLOT_MS + Math.floor(noise(seed, slot, salt + (d < 2 ? 0 : d)) * SLOT_MS);
        const messageId = `msg_${slot}_${d}`;
        if (noise(seed ^ 0xe1, slot, d) < destination.errors) {
          const time = at(0x10);
          if (time >= from && time <= to)
            out.push({ at: time, body: logEvent(time, messageId, 'ERROR', destination, labelsOf(d, slot)) });
        }
        if (noise(seed ^ 0xf1, slot, d) < destination.failures) {
          const time = at(0x20) + 1;
          if (time >= from && time <= to)
            out.push({ at: time, body: logEvent(time, messageId, 'FAILED', destination, labelsOf(d, slot)) });
        }
        // Deliveries spread over the slot; one the destination fails errs instead.
        const wanted =
          kept === undefined || kept === 'DELIVERED' || (kept === 'ERROR' && this.#failing.has(d));
        for (let i = 0; wanted && i < destination.delivered; i++) {
          const time = slot * SLOT_MS + Math.floor(noise(seed ^ 0xd1, slot, d * 64 + i) * SLOT_MS);
          if (time < from || time > to) continue;
          const failed = noise(seed ^ 0xd2, slot, d * 64 + i) < this.#failingShare(d, time);
          const body = logEvent(
            time,
            `msg_${slot}_${d}_${i}`,
            failed ? 'ERROR' : 'DELIVERED',
            destination,
            labelsOf(d, slot),
          );
          out.push({ at: time, body });
        }
      });
    }
    return out;
  }

  answer(_params: RouteParams, query?: URLSearchParams): Answer {
    // Opened before the clock is read: an opening this read fixes is not after its `now`.
    this.#ctx.opening.at();
    if (badTimeParam(query)) return jsonAnswer(400, { error: 'fromDate and toDate must be int64' });
    const now = this.#ctx.now();
    // Only a list given is served as dated: the generated log is never ahead of the clock.
    const latest = this.#dating === 'as-given' && this.#override !== null ? Infinity : now;
    const to = Math.min(latest, timeParam(query, 'toDate') ?? latest);
    const from = Math.max(now - RETENTION_MS, timeParam(query, 'fromDate') ?? 0);
    const state = query?.get('state') ?? undefined;
    // Shown, then filtered: a late event is late in the whole log, whatever state is asked.
    // A late dating picks late events over the whole log, so it needs every event generated.
    const kept = typeof this.#dating === 'string' ? state : undefined;
    const events = shown(this.eventsBetween(from, to, kept), this.#dating, now).filter(
      (e) => state === undefined || e.body.state === state,
    );
    return eventPage(
      events.map((event) => this.#written(event)),
      query,
      this.#listField,
      MAX_COUNT,
    );
  }

  /** The event as served: its `time` in the unit the fault says, if any. */
  #written(event: Timed): Timed {
    const unit = this.#units.get(String(event.body.messageId));
    return unit === undefined
      ? event
      : { at: event.at, body: { ...event.body, time: inUnit(event.at, unit) } };
  }
}

/** QStash `GET /v2/logs`, as documented: the list under `logs`. */
export const qstashLogsEndpoint = defineEndpoint({
  name: 'qstash_logs',
  credential: 'bearer',
  path: '/v2/logs',
  oversizeFrame: ['{"logs":[],"padding":"', '"}'],
  create: (ctx: EndpointContext) => new QstashLogs(ctx, 'logs'),
});

/** QStash `GET /v2/events`, what `@upstash/qstash` calls: the same log under `events`. */
export const qstashEventsEndpoint = defineEndpoint({
  name: 'qstash_events',
  credential: 'bearer',
  path: '/v2/events',
  oversizeFrame: ['{"events":[],"padding":"', '"}'],
  create: (ctx: EndpointContext) => new QstashLogs(ctx, 'events'),
});
