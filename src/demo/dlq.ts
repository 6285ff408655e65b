import { jsonAnswer } from './answer.js';
import type { Answer } from './answer.js';
import { BodyCache } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { noise } from './noise.js';
import type { RouteParams } from './paths.js';

/**
 * What every simulated dead-letter message carries in its URL, headers, body, labels and response:
 * the exporter must never show it (tests look for it in /metrics, pages and logs).
 */
export const DEMO_DLQ_SECRET = 'demo-dlq-secret-Q7v2MARK';
/** The caller IP every simulated message carries; never shown either. */
export const DEMO_DLQ_CALLER_IP = '203.0.113.77';

/** One message a minute at most, for this long: a few hundred messages, so paging shows. */
const WINDOW_MS = 6 * 3_600_000;
const MINUTE = 60_000;
/** Messages a page holds at most, as QStash's `count` allows. */
const MAX_COUNT = 100;

const QUEUES = ['orders', 'invoices-paused', 'fifo-ledger', undefined, undefined] as const;
const URL_GROUPS = ['billing-webhooks', 'audit-fanout', undefined] as const;
const STATUSES = [500, 500, 502, 503, 404, 400, 429, 401] as const;
/**
 * What became of a failed run's failure callback: mostly done, some still running or canceled, some
 * runs without one. None failed: a failed callback pages (UpstashWorkflowFailureCallbackFailing), and
 * the healthy simulator pages nobody; {@link DlqBehaviour.failedCallbacks} adds them.
 */
const CALLBACK_STATES = [
  'CALLBACK_SUCCESS',
  'CALLBACK_SUCCESS',
  'CALLBACK_SUCCESS',
  'CALLBACK_CANCELED',
  'CALLBACK_INPROGRESS',
  undefined,
] as const;
const WITH_FAILED_CALLBACKS = [...CALLBACK_STATES, 'CALLBACK_FAIL'] as const;

/** How a simulated DLQ misbehaves on purpose, page by page (the route's faults hit every page). */
export interface DlqBehaviour {
  /** Messages it holds instead of the generated few hundred (oldest one minute apart, up to now). */
  readonly messages?: number;
  /** This page (1-based) answers 500. */
  readonly failPage?: number;
  /** This page (1-based) gives back the cursor of the page before it. */
  readonly repeatCursorPage?: number;
  /** With `messages`: each message has a queue of its own, whose name is this many characters long. */
  readonly queueNameLength?: number;
  /** Workflow DLQ: some runs' failure callback failed (`CALLBACK_FAIL`). */
  readonly failedCallbacks?: boolean;
}

/** The message of minute `m` of a DLQ, with every field QStash documents, secrets included. */
function message(list: DlqRoute, seed: number, m: number, failedCallbacks = false): Record<string, unknown> {
  const u = (salt: number): number => noise(seed ^ (list === 'dlq' ? 0xd1 : 0xd2), m, salt);
  const createdAt = m * MINUTE;
  const pick = <T>(options: readonly T[], salt: number): T =>
    options[Math.floor(u(salt) * options.length)] as T;
  const secret = {
    url: `https://api.example.com/hooks/${m}?token=${DEMO_DLQ_SECRET}`,
    method: 'POST',
    header: { Authorization: [`Bearer ${DEMO_DLQ_SECRET}`], 'Content-Type': ['application/json'] },
    body: JSON.stringify({ card: DEMO_DLQ_SECRET, order: m }),
    callerIP: DEMO_DLQ_CALLER_IP,
    labels: [`customer-${DEMO_DLQ_SECRET}`],
    responseStatus: pick(STATUSES, 3),
    responseHeader: { 'Set-Cookie': [`session=${DEMO_DLQ_SECRET}`] },
    responseBody: `{"error":"refused","echo":"${DEMO_DLQ_SECRET}"}`,
    maxRetries: 3,
    createdAt,
  };
  if (list === 'workflow_dlq') {
    const failureFunctionState = pick(failedCallbacks ? WITH_FAILED_CALLBACKS : CALLBACK_STATES, 4);
    return {
      dlqId: `wf-dlq-${m}`,
      workflowRunId: `wfr_${m}`,
      workflowUrl: `https://app.example.com/api/workflow?secret=${DEMO_DLQ_SECRET}`,
      workflowCreatedAt: createdAt - 5_000,
      ...(failureFunctionState !== undefined && { failureFunctionState }),
      ...secret,
    };
  }
  const queueName = pick(QUEUES, 1);
  const topicName = pick(URL_GROUPS, 2);
  return {
    messageId: `msg_${m}`,
    dlqId: `dlq-${m}`,
    ...(queueName !== undefined && { queueName }),
    ...(topicName !== undefined && { topicName }),
    ...secret,
  };
}

type DlqRoute = 'dlq' | 'workflow_dlq';

/**
 * A simulated dead-letter queue: over the last six hours, a message in most minutes (the set moves
 * with the clock: new ones arrive, the oldest leave), across queues, URL groups and status codes,
 * served oldest first in pages of `count` (at most 100) with a cursor, as QStash pages it.
 */
export class Dlq implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #list: DlqRoute;
  readonly #bodies: BodyCache;
  #behaviour: DlqBehaviour = {};

  constructor(ctx: EndpointContext, list: DlqRoute) {
    this.#ctx = ctx;
    this.#list = list;
    this.#bodies = new BodyCache(ctx.frozen);
  }

  /** Misbehave page by page (or hold a given number of messages); `null` goes back to normal. */
  setOverride(behaviour: DlqBehaviour | null): void {
    this.#behaviour = behaviour ?? {};
    this.#bodies.clear();
  }

  /** The messages at time t, oldest first. */
  messagesAt(t: number): Record<string, unknown>[] {
    const last = Math.floor(t / MINUTE);
    const { messages, failedCallbacks } = this.#behaviour;
    const out: Record<string, unknown>[] = [];
    if (messages !== undefined) {
      const { queueNameLength } = this.#behaviour;
      for (let m = last - messages + 1; m <= last; m++) {
        const one = message(this.#list, this.#ctx.seed, m, failedCallbacks);
        if (queueNameLength !== undefined) one.queueName = `q${m}-`.padEnd(queueNameLength, 'n');
        out.push(one);
      }
      return out;
    }
    for (let m = last - WINDOW_MS / MINUTE + 1; m <= last; m++) {
      // Most minutes fail a message; which ones moves with the data, so the count moves too.
      if (noise(this.#ctx.seed, m, 0xd0) < 0.8)
        out.push(message(this.#list, this.#ctx.seed, m, failedCallbacks));
    }
    return out;
  }

  answer(_params: RouteParams, query?: URLSearchParams): Answer {
    const count = Math.min(MAX_COUNT, Math.max(1, Number(query?.get('count') ?? MAX_COUNT) || MAX_COUNT));
    const cursor = query?.get('cursor') ?? undefined;
    // The cursor is the creation time of the first message of the page, so a page is stable while
    // the set moves (the real cursor is as opaque; only its round trip matters).
    const from = cursor === undefined ? -Infinity : Number(cursor);
    if (Number.isNaN(from)) return jsonAnswer(400, { error: 'invalid cursor' });
    const all = this.messagesAt(this.#ctx.now());
    const start = all.findIndex((m) => (m.createdAt as number) >= from);
    const page = start === -1 ? 1 : Math.floor(start / count) + 1;
    const { failPage, repeatCursorPage } = this.#behaviour;
    if (page === failPage) return jsonAnswer(500, { error: 'Internal Server Error' });
    const body = this.#bodies.get(`${count} ${cursor ?? ''}`, () => {
      const messages = start === -1 ? [] : all.slice(start, start + count);
      const next = start === -1 ? undefined : all[start + count];
      const nextCursor =
        page === repeatCursorPage && cursor !== undefined
          ? cursor
          : next === undefined
            ? undefined
            : String(next.createdAt);
      return JSON.stringify({ messages, ...(nextCursor !== undefined && { cursor: nextCursor }) });
    });
    return { status: 200, body };
  }
}

/** The route of a dead-letter queue: GET `path`, paged by `count` and `cursor`. */
function dlqRoute<const Name extends DlqRoute>(name: Name, path: string) {
  return defineEndpoint({
    name,
    credential: 'bearer',
    path,
    oversizeFrame: ['{"messages":[],"padding":"', '"}'],
    create: (ctx: EndpointContext) => new Dlq(ctx, name),
  });
}

/** QStash `GET /v2/dlq`. */
export const dlqEndpoint = dlqRoute('dlq', '/v2/dlq');
/** Upstash Workflow's `GET /v2/workflows/dlq`, paged the same way. */
export const workflowDlqEndpoint = dlqRoute('workflow_dlq', '/v2/workflows/dlq');
