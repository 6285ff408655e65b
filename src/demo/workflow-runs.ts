import { jsonAnswer, type Answer } from './answer.js';
import { defineEndpoint, type Endpoint, type EndpointContext } from './endpoint.js';
import { badTimeParam, eventPage, shown, timeParam, type EventDating, type Timed } from './event-pages.js';
import { noise } from './noise.js';
import { DEMO_EVENT_CALLER_IP, DEMO_EVENT_SECRET, DEMO_LABELS } from './qstash-logs.js';
import type { RouteParams } from './paths.js';

/** Runs a page holds in run mode (`groupBy=workflowRunId`), Upstash's documented maximum. */
const RUN_PAGE = 10;
/** How far back runs are generated. */
const RETENTION_MS = 8 * 3_600_000;
/** The stuck run was created this long before the simulator started, and never completes. */
export const STUCK_RUN_AGE_MS = 2 * 3_600_000;

/** The simulated workflows: how often a run starts, how long it takes, how often it fails. */
export const DEMO_WORKFLOWS = [
  {
    url: `https://app.example.com/api/workflows/onboarding?secret=${DEMO_EVENT_SECRET}`,
    everyMs: 20_000,
    runs: 0.8,
    seconds: [2, 15],
    failed: 0.12,
    canceled: 0.03,
  },
  {
    url: 'https://app.example.com/api/workflows/report',
    everyMs: 300_000,
    runs: 0.8,
    seconds: [120, 600],
    failed: 0,
    canceled: 0.1,
  },
] as const;
/** The workflow whose one run is stuck (user info and fragment in its URL, never shown). */
export const DEMO_STUCK_WORKFLOW = `https://ops:${DEMO_EVENT_SECRET}@jobs.example.com/api/workflows/import#step-${DEMO_EVENT_SECRET}`;

/**
 * Which time upstream's `fromDate` filters runs on (docs/metrics.md, Delivery errors and workflow runs):
 * undocumented, so both are simulated.
 */
export type FromDateReading = 'created' | 'events';

/** A run as the simulator knows it: its times and outcome. */
export interface DemoRun {
  readonly id: string;
  readonly url: string;
  readonly createdAt: number;
  /** Undefined: never completes (the stuck run). */
  readonly completedAt: number | undefined;
  readonly outcome: 'RUN_SUCCESS' | 'RUN_FAILED' | 'RUN_CANCELED';
  /**
   * A failed run's failure function: its `state` as Upstash spells it (`CALLBACK_SUCCESS`,
   * `CALLBACK_FAIL`, ...), `null` for a workflow without one; absent: one that succeeded.
   */
  readonly failureFunction?: string | null;
}

/** What became of the failure functions of the generated failed runs, by share: some have none. */
const FAILURE_FUNCTIONS = [
  { below: 0.2, state: null },
  { below: 0.35, state: 'CALLBACK_FAIL' },
  { below: 0.4, state: 'CALLBACK_INPROGRESS' },
  { below: 1, state: 'CALLBACK_SUCCESS' },
] as const;

/**
 * A run's labels (docs/metrics.md, Your own labels): the opening's both listed ones, the onboarding
 * workflow's `tenant-a`, the report's the older `label` string `checkout`; each `labels` array also
 * holds one with the secret, never listed.
 */
function runLabels(run: DemoRun): Record<string, unknown> {
  const secret = `tenant-${DEMO_EVENT_SECRET}`;
  if (run.id.startsWith('wfr_demo_opening')) return { labels: [...DEMO_LABELS, secret] };
  if (run.url === DEMO_WORKFLOWS[1].url) return { label: 'checkout' };
  return { labels: ['tenant-a', secret] };
}

/** A run as Upstash's run mode returns it at time `now`, every field filled (secrets included). */
function runBody(run: DemoRun, now: number): Record<string, unknown> {
  // The time is the caller's: with dating `as-given` it is Infinity (every completion has passed).
  const finished = run.completedAt !== undefined && run.completedAt <= now;
  const secretHeaders = { Authorization: [`Bearer ${DEMO_EVENT_SECRET}`] };
  return {
    workflowRunId: run.id,
    workflowUrl: run.url,
    workflowState: finished ? run.outcome : 'RUN_STARTED',
    workflowRunCreatedAt: run.createdAt,
    ...(finished && { workflowRunCompletedAt: run.completedAt }),
    workflowRunCallerIp: DEMO_EVENT_CALLER_IP,
    workflowRunResponse: `{"token":"${DEMO_EVENT_SECRET}"}`,
    ...runLabels(run),
    flowControlKey: `key-${DEMO_EVENT_SECRET}`,
    steps: [
      {
        type: 'sequential',
        steps: [
          {
            stepName: 'init',
            state: 'STEP_SUCCESS',
            headers: secretHeaders,
            body: DEMO_EVENT_SECRET,
            out: `{"card":"${DEMO_EVENT_SECRET}"}`,
            callerIp: DEMO_EVENT_CALLER_IP,
          },
        ],
      },
    ],
    ...(run.outcome === 'RUN_FAILED' && { dlqId: `dlq_${run.id}` }),
    ...(run.outcome === 'RUN_FAILED' &&
      run.failureFunction !== null && {
        failureFunction: {
          messageId: `msg_fail_${run.id}`,
          url: `https://cb.example.com/fail?key=${DEMO_EVENT_SECRET}`,
          state: run.failureFunction ?? 'CALLBACK_SUCCESS',
          failHeaders: secretHeaders,
          failStatus: 500,
          failResponse: `{"token":"${DEMO_EVENT_SECRET}"}`,
        },
      }),
  };
}

/**
 * Upstash Workflow's runs: two workflows starting runs on their own rhythm (one fails now and then,
 * its failure function mostly succeeding, now and then failing, absent for some runs; the other is
 * sometimes canceled), one run stuck since two hours before the simulator started, and
 * two begun at start-up that finish at the opening (opening.ts), one of them failed.
 * Run mode only (`groupBy=workflowRunId`), newest first by creation, 10 a page; `fromDate` read as
 * the runs' creation time or as their events' (the completion of a finished run), as set.
 */
export class WorkflowRuns implements Endpoint {
  readonly #ctx: EndpointContext;
  #override: readonly DemoRun[] | null = null;
  #reading: FromDateReading = 'created';
  #dating: EventDating = 'visible';

  constructor(ctx: EndpointContext) {
    this.#ctx = ctx;
  }

  /** Serve these runs instead of generated ones; `null` restores. */
  setOverride(runs: readonly DemoRun[] | null): void {
    this.#override = runs;
  }

  /** Whether completions dated after the clock are served (a fault: event-pages.ts, EventDating). */
  setDating(dating: EventDating): void {
    this.#dating = dating;
  }

  /** Which time `fromDate` filters on. */
  setFromDateReading(reading: FromDateReading): void {
    this.#reading = reading;
  }

  /** The runs created by `now`, generated (or the override). */
  runsAt(now: number): DemoRun[] {
    if (this.#override !== null) return this.#override.filter((run) => run.createdAt <= now);
    const seed = this.#ctx.seed;
    const out: DemoRun[] = [
      {
        id: 'wfr_demo_stuck',
        url: DEMO_STUCK_WORKFLOW,
        createdAt: this.#ctx.origin - STUCK_RUN_AGE_MS,
        completedAt: undefined,
        outcome: 'RUN_SUCCESS',
      },
    ];
    // The opening (opening.ts): two runs of the onboarding workflow begun at start-up finish.
    const opened = this.#ctx.opening.at();
    if (opened !== undefined)
      out.push(
        {
          id: 'wfr_demo_opening',
          url: DEMO_WORKFLOWS[0].url,
          createdAt: this.#ctx.origin,
          completedAt: opened,
          outcome: 'RUN_SUCCESS',
        },
        // And one fails, its failure function run: the failure callbacks' counter from the first poll.
        {
          id: 'wfr_demo_opening_failed',
          url: DEMO_WORKFLOWS[0].url,
          createdAt: this.#ctx.origin,
          completedAt: opened,
          outcome: 'RUN_FAILED',
          failureFunction: 'CALLBACK_SUCCESS',
        },
      );
    DEMO_WORKFLOWS.forEach((workflow, w) => {
      for (
        let slot = Math.floor((now - RETENTION_MS) / workflow.everyMs);
        slot * workflow.everyMs <= now;
        slot++
      ) {
        const u = (salt: number) => noise(seed ^ 0xa7, slot, w * 16 + salt);
        if (u(0) >= workflow.runs) continue;
        const createdAt = slot * workflow.everyMs + Math.floor(u(1) * workflow.everyMs);
        if (createdAt > now) continue;
        const [lo, hi] = workflow.seconds;
        const completedAt = createdAt + Math.round((lo + u(2) * (hi - lo)) * 1000);
        const roll = u(3);
        const outcome =
          roll < workflow.failed
            ? 'RUN_FAILED'
            : roll < workflow.failed + workflow.canceled
              ? 'RUN_CANCELED'
              : 'RUN_SUCCESS';
        const run = { id: `wfr_${w}_${slot}`, url: workflow.url, createdAt, completedAt, outcome } as const;
        if (outcome !== 'RUN_FAILED') out.push(run);
        else {
          const roll = u(4);
          const failureFunction = FAILURE_FUNCTIONS.find((f) => roll < f.below)?.state ?? null;
          out.push({ ...run, failureFunction });
        }
      }
    });
    return out;
  }

  answer(_params: RouteParams, query?: URLSearchParams): Answer {
    if (query?.get('groupBy') !== 'workflowRunId')
      return jsonAnswer(400, { error: 'the simulator serves run mode only (groupBy=workflowRunId)' });
    // Opened before the clock is read: an opening this read fixes is not after its `now`.
    this.#ctx.opening.at();
    if (badTimeParam(query)) return jsonAnswer(400, { error: 'fromDate must be int64' });
    const clock = this.#ctx.now();
    const now = this.#dating === 'as-given' ? Infinity : clock;
    const state = query.get('state') ?? undefined;
    const from = timeParam(query, 'fromDate');
    const runs: Timed[] = [];
    for (const run of this.runsAt(clock)) {
      const finished = run.completedAt !== undefined && run.completedAt <= now;
      const runState = finished ? run.outcome : 'RUN_STARTED';
      if (state !== undefined && state !== runState) continue;
      // Creation reading: the run's creation; events reading: its last event (completion, or now).
      const filtered = this.#reading === 'created' ? run.createdAt : finished ? run.completedAt : clock;
      if (from !== undefined && filtered < from) continue;
      runs.push({ at: run.createdAt, body: runBody(run, now) });
    }
    return eventPage(shown(runs, this.#dating, clock), query, 'runs', RUN_PAGE);
  }
}

/** Workflow `GET /v2/workflows/logs`, as documented. */
export const workflowLogsEndpoint = defineEndpoint({
  name: 'workflow_logs',
  credential: 'bearer',
  path: '/v2/workflows/logs',
  oversizeFrame: ['{"runs":[],"padding":"', '"}'],
  create: (ctx: EndpointContext) => new WorkflowRuns(ctx),
});

/** Workflow `GET /v2/workflows/events`, what `@upstash/workflow` calls: the same runs. */
export const workflowEventsEndpoint = defineEndpoint({
  name: 'workflow_events',
  credential: 'bearer',
  path: '/v2/workflows/events',
  oversizeFrame: ['{"runs":[],"padding":"', '"}'],
  create: (ctx: EndpointContext) => new WorkflowRuns(ctx),
});
