import { counter, gauge, histogram } from '../metrics/catalogue.js';
import { labelKey } from '../metrics/label-limit.js';
import { keepLargest, sample, type Sample } from '../metrics/sample.js';
import {
  FINISHED_RUN_STATES,
  RUN_PAGE_SIZE,
  RUN_STARTED,
  WORKFLOW_RUNS,
  type FinishedRunState,
  type WorkflowRun,
} from '../upstash/workflow-runs.js';
import { KeyBudget, OTHER, type CountedEvent, type EventSeries } from './event-rule.js';
import { withListedLabels, type Labelled } from '../upstash/listed-labels.js';
import { labelSamples, perLabel } from './event-labels.js';
import {
  counterSamples,
  exemplarId,
  histogramSamples,
  scanMetrics,
  type ExemplarSpec,
} from './event-samples.js';
import { EventPoll } from './event-scan.js';
import { sincePoll } from './event-warnings.js';
import { counted, polled, type SourceKind } from './source.js';

const NAME = 'workflow_runs';

/** The buckets of run durations (seconds; docs/metrics.md, Delivery errors and workflow runs). */
export const DURATION_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 14400, 86400] as const;

/** The `state` label of each finished state. */
const OUTCOME: Record<FinishedRunState, string> = {
  RUN_SUCCESS: 'success',
  RUN_FAILED: 'failed',
  RUN_CANCELED: 'canceled',
};

const CAP = 'label sets beyond limits.max_event_series counted under workflow="other"';
const POLLED = polled(NAME);
const SCAN = scanMetrics(NAME, 'workflow_runs', 'window of finished workflow runs');
const FINISHED = counter(
  'upstash_workflow_runs_finished_total',
  `Workflow runs finished since the exporter started, by workflow (its URL's origin and path) and outcome (success, failed, canceled); ${CAP}. ${POLLED}`,
);
const DURATION = histogram(
  'upstash_workflow_run_duration_seconds',
  `How long the runs counted in upstash_workflow_runs_finished_total ran, from creation to completion, by workflow and outcome (seconds). ${POLLED}`,
);
const CALLBACKS = counter(
  'upstash_workflow_failure_callbacks_total',
  `Failed workflow runs counted in upstash_workflow_runs_finished_total, by workflow and what became of their failure function (state: failureFunction.state as Upstash spells it, e.g. CALLBACK_FAIL; "none" when the run has none, "unknown" when its state is not given), each once its state is final, or under CALLBACK_INPROGRESS once it leaves workflow_lookback unfinished; workflows beyond limits.max_event_series counted under workflow "other", the state kept. ${POLLED}`,
);
const LABEL_RUNS = counter(
  'upstash_workflow_label_runs_finished_total',
  `Workflow runs finished since the exporter started, by the entry's listed Upstash label they carry (a run with two counts under each) and outcome (success, failed, canceled). ${POLLED}`,
);
/** The exemplar label of a run (docs/metrics.md, Exemplars). */
const RUN_ID = 'workflow_run_id';
const IN_PROGRESS = gauge(
  'upstash_workflow_runs_in_progress',
  `Workflow runs in progress (RUN_STARTED) as the last poll listed them, at most limits.max_event_pages pages of 10, by workflow; the limits.max_event_series largest kept (count). ${POLLED}`,
);
const OLDEST = gauge(
  'upstash_workflow_oldest_run_start_timestamp_seconds',
  `When the oldest run in progress of the workflow was created; absent when none (Unix time in seconds). ${POLLED}`,
  1000,
);

/** The failure function's states Upstash names, and ours: never folded. */
const KNOWN_CALLBACK_STATES = new Set([
  'CALLBACK_INPROGRESS',
  'CALLBACK_SUCCESS',
  'CALLBACK_FAIL',
  'CALLBACK_CANCELED',
  'none',
  'unknown',
]);

/** Distinct failure-function states an entry exports at most, as for `qstash_stats`' states. */
const MAX_CALLBACK_STATES = 20;

/**
 * The `state` label of a failed run's failure function: as Upstash spells it, `none`, or `unknown`.
 * A spelling Upstash does not name is kept as it comes while the entry has fewer than 20 states,
 * and is `other` beyond (docs/metrics.md, Delivery errors and workflow runs), so that an upstream
 * inventing spellings cannot grow series without bound; the named ones are never folded.
 */
class FailureLabels {
  readonly #seen = new Set<string>();
  /** Spellings folded into `other` by this poll. */
  readonly folded = new Set<string>();

  /** From the outcomes counted so far (labels: workflow, state). */
  constructor(outcomes: readonly EventSeries[]) {
    for (const s of outcomes) if (s.labels[1] !== undefined) this.#seen.add(s.labels[1]);
  }

  label(state: string | undefined): string {
    if (state === undefined) return 'none';
    const label = state === '' ? 'unknown' : labelKey(state);
    if (KNOWN_CALLBACK_STATES.has(label) || this.#seen.has(label)) return label;
    if (this.#seen.size < MAX_CALLBACK_STATES) {
      this.#seen.add(label);
      return label;
    }
    this.folded.add(label);
    return OTHER;
  }
}

/** The failure function's state while its callback is delivered and retried: not final yet. */
const IN_PROGRESS_CALLBACK = 'CALLBACK_INPROGRESS';

/**
 * A finished run of `state` as the event rule counts it: keyed on completion (a whole ms: a fraction
 * would make every later `fromDate` one, which upstream refuses), identified by ID and creation. A
 * failed run's failure function is its outcome, counted once it is final (any state but
 * CALLBACK_INPROGRESS: docs/metrics.md, Event counters), on the same identities as the run.
 */
function countedRun(
  run: WorkflowRun & { readonly workflowRunCompletedAt: number },
  state: FinishedRunState,
  failures: FailureLabels,
  exemplars = false,
): CountedEvent {
  const workflow = labelKey(run.workflow ?? '');
  const exemplar = exemplars ? exemplarId(RUN_ID, run.workflowRunId) : undefined;
  return {
    ...(exemplar !== undefined && { exemplar }),
    time: Math.floor(run.workflowRunCompletedAt),
    // As label keys: a long ID or URL is held as its head and hash (qstash-logs.ts says why).
    identity: labelKey(`${run.workflowRunId}@${run.workflowRunCreatedAt}`),
    labels: [workflow],
    value: Math.max(0, run.workflowRunCompletedAt - run.workflowRunCreatedAt) / 1000,
    ...(state === 'RUN_FAILED' && {
      outcome: {
        labels: [failures.label(run.failureFunctionState)],
        final: run.failureFunctionState !== IN_PROGRESS_CALLBACK,
      },
    }),
  };
}

/** The failed runs counted under a failure function that failed (`CALLBACK_FAIL`), every workflow. */
function failedCallbacks(outcomes: readonly EventSeries[]): number {
  return outcomes.filter((s) => s.labels[1] === 'CALLBACK_FAIL').reduce((sum, s) => sum + s.count, 0);
}

/**
 * Upstash Workflow's runs by workflow (docs/metrics.md, Delivery errors and workflow runs), on the entry's `events_interval`:
 * for each finished state, the runs asked for from W − settle − workflow_lookback in run mode and
 * counted by the event rule on their completion time, whichever time upstream's fromDate filters on; then the runs in
 * progress, read whole up to the page cap, as gauges.
 */
export const workflowRuns: SourceKind<'workflow_runs'> = {
  name: NAME,
  per: 'account',
  metrics: [
    FINISHED,
    DURATION,
    CALLBACKS,
    LABEL_RUNS,
    IN_PROGRESS,
    OLDEST,
    SCAN.complete,
    SCAN.unread,
    SCAN.watermark,
  ],
  async poll(request) {
    const { account, limits, events } = request;
    // The poll plan gives every qstash entry its workflow_lookback, defaulted once where the config is
    // resolved: one missing here is a bug of ours (an `internal` failure), not a value to guess again.
    const lookback = account.workflowLookbackMs;
    if (lookback === undefined) throw new Error(`${NAME} polled without the entry's workflow_lookback`);
    const poll = new EventPoll(request, NAME, SCAN);
    const exemplars = account.exemplars !== false;
    const spec: ExemplarSpec | undefined = exemplars ? { label: RUN_ID, perSecond: 1000 } : undefined;
    const listed = account.labels ?? [];
    const runs = withListedLabels(WORKFLOW_RUNS, listed);
    // The finished runs of `state` on a page: another state's (an upstream that ignored the filter)
    // is not counted.
    const finished = (
      entries: readonly Labelled<WorkflowRun>[],
      state: FinishedRunState,
    ): (Labelled<WorkflowRun> & { workflowRunCompletedAt: number })[] =>
      entries.filter((run): run is Labelled<WorkflowRun> & { workflowRunCompletedAt: number } => {
        if (run.workflowState !== undefined && run.workflowState !== state) return false;
        // A finished run without its completion time cannot be keyed: said, not counted.
        if (run.workflowRunCompletedAt === undefined) poll.rejected.add('workflowRunCompletedAt');
        return run.workflowRunCompletedAt !== undefined;
      });
    const samples: Sample[] = [];
    const failed: string[] = [];
    // One metric, three states: one budget of workflows, a workflow under its name in all or none.
    const keys = new KeyBudget(
      limits.maxEventSeries,
      FINISHED_RUN_STATES.map((s) => events.states.get(`${NAME}/${s}`)?.series ?? []),
    );
    const failures = new FailureLabels(events.states.get(`${NAME}/RUN_FAILED`)?.outcomes ?? []);
    for (const state of FINISHED_RUN_STATES) {
      const callbacksBefore = failedCallbacks(events.states.get(`${NAME}/${state}`)?.outcomes ?? []);
      const { result, first, byLabel } = await poll.scan(
        state,
        {
          perSecond: 1000,
          ordered: false,
          pageSize: RUN_PAGE_SIZE,
          buckets: DURATION_BUCKETS,
          keys,
          pendingWindowMs: lookback,
        },
        poll.pages(runs, (from) => ({ state, fromDate: Math.max(0, from - lookback) })),
        (page) => finished(page, state).map((run) => countedRun(run, state, failures, exemplars)),
        listed.length === 0
          ? undefined
          : (page) =>
              finished(page, state).flatMap((run) => perLabel(countedRun(run, state, failures), run.labels)),
      );
      if (state === 'RUN_FAILED' && result.counted > 0)
        failed.push(sincePoll(`${counted(result.counted, 'workflow run')} failed`, first));
      // The last line of defence failed: said with its count (docs/operations.md, The landing page).
      const callbackFails =
        state === 'RUN_FAILED' ? failedCallbacks(result.state.outcomes) - callbacksBefore : 0;
      if (callbackFails > 0)
        failed.push(
          sincePoll(`${counted(callbackFails, 'failed workflow run')} whose failure function failed`, first),
        );
      const outcome: [string, string][] = [['state', OUTCOME[state]]];
      const { series } = result.state;
      samples.push(...counterSamples(FINISHED, account.name, ['workflow'], series, outcome, spec));
      samples.push(
        ...histogramSamples(DURATION, DURATION_BUCKETS, account.name, ['workflow'], series, outcome, spec),
      );
      if (state === 'RUN_FAILED')
        samples.push(
          ...counterSamples(CALLBACKS, account.name, ['workflow', 'state'], result.state.outcomes, [], spec),
        );
      samples.push(...labelSamples(LABEL_RUNS, account.name, listed, byLabel, outcome));
    }
    // Failure-function spellings beyond the bound, once a poll each.
    poll.truncated += failures.folded.size;
    // The runs in progress now: no fromDate, every page up to the cap, counted afresh each poll.
    const running = new Map<string, { count: number; oldest: number }>();
    const listedAll = await poll.pages(WORKFLOW_RUNS, () => ({ state: RUN_STARTED }))(0, (runs) => {
      for (const run of runs) {
        if (run.workflowState !== undefined && run.workflowState !== RUN_STARTED) continue;
        const workflow = labelKey(run.workflow ?? '');
        const seen = running.get(workflow);
        if (seen === undefined) running.set(workflow, { count: 1, oldest: run.workflowRunCreatedAt });
        else {
          seen.count++;
          seen.oldest = Math.min(seen.oldest, run.workflowRunCreatedAt);
        }
      }
      return true;
    });
    const kept = keepLargest(
      [...running],
      limits.maxEventSeries,
      ([, r]) => r.count,
      ([w]) => w,
    );
    const left = running.size - kept.length;
    poll.truncated += left;
    for (const [workflow, { count, oldest }] of kept) {
      const labels: [string, string][] = [
        ['account', account.name],
        ['workflow', workflow],
      ];
      samples.push(sample(IN_PROGRESS, labels, count), sample(OLDEST, labels, oldest));
    }
    return poll.result(samples, {
      what: 'window',
      trouble: failed,
      more: [
        ...(listedAll
          ? []
          : [
              `runs in progress: listing stopped at max_event_pages (${counted(limits.maxEventPages, 'page')}): the counts are lower bounds`,
            ]),
        ...(left > 0
          ? [
              `${counted(left, 'workflow')} with runs in progress not exported: max_event_series (${counted(limits.maxEventSeries, 'label set')}) reached`,
            ]
          : []),
      ],
    });
  },
};
