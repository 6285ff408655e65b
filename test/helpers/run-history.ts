import fc from 'fast-check';
import { expect } from 'vitest';
import { workflowRuns } from '../../src/sources/workflow-runs.js';
import { EventAccount, SETTLE_MS, START, labelOf, type SeriesKey } from './event-account.js';
import { EventModel, type Check, type ModelEvent } from './event-model.js';
import { timeClass } from './event-steps.js';
import { plausible, timeOf, type TimeClass, type UpstreamEvent } from './event-upstream.js';

// Histories of `workflow_runs` (docs/metrics.md, Delivery errors and workflow runs) for the
// generator of test/property/event-runs.property.test.ts: finished runs whose completion time is in
// every unit and edge, listed twice, arriving while a poll pages, visible late; runs listed again
// with a later completion time (the same run: its ID and creation are kept); failed runs whose
// failure function is CALLBACK_INPROGRESS, then CALLBACK_FAIL, CALLBACK_SUCCESS or CALLBACK_CANCELED;
// page caps, failed pages, reloads, worker deaths. Each run has its own workflow (its URL), so the
// series say which runs were counted, unless `workflows` names a pool (the cap's properties).

const STATES = ['RUN_SUCCESS', 'RUN_FAILED', 'RUN_CANCELED'] as const;
const FINAL = ['CALLBACK_FAIL', 'CALLBACK_SUCCESS', 'CALLBACK_CANCELED'] as const;
const FAILURE = ['none', 'CALLBACK_INPROGRESS', ...FINAL] as const;
type Failure = (typeof FAILURE)[number];

/** One step of a run history. */
export type RunStep =
  | {
      readonly kind: 'finish';
      readonly state: (typeof STATES)[number];
      readonly count: number;
      readonly time: TimeClass;
      readonly aheadMs: number;
      readonly durationMs: number;
      readonly failure: Failure;
      readonly workflow: number;
      readonly copies: number;
      readonly during: boolean;
    }
  | { readonly kind: 'late'; readonly ms: number; readonly failure: Failure; readonly workflow: number }
  | { readonly kind: 'restamp'; readonly pick: number; readonly ms: number }
  | { readonly kind: 'callback'; readonly pick: number; readonly final: (typeof FINAL)[number] }
  | { readonly kind: 'advance'; readonly ms: number }
  | {
      readonly kind: 'poll';
      readonly page: number;
      readonly failAt: number | undefined;
      readonly publish: boolean;
    }
  | { readonly kind: 'die' }
  | { readonly kind: 'reload'; readonly pages: number; readonly series: number };

type Finish = Extract<RunStep, { kind: 'finish' }>;
/** A run visible late: failed, of a second, dated in ms. */
const LATE: Finish = {
  kind: 'finish',
  state: 'RUN_FAILED',
  count: 1,
  time: 'ms',
  aheadMs: 0,
  durationMs: 1000,
  failure: 'none',
  workflow: 0,
  copies: 1,
  during: false,
};

const failure = fc.constantFrom(...FAILURE);

/** A step of a run history, its completion times of `times`. */
export function runStep(times: fc.Arbitrary<TimeClass> = timeClass): fc.Arbitrary<RunStep> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('finish' as const),
        state: fc.constantFrom(...STATES),
        count: fc.integer({ min: 1, max: 3 }),
        time: times,
        aheadMs: fc.integer({ min: 60_000, max: 240_000 }),
        durationMs: fc.integer({ min: 0, max: 60_000 }),
        failure,
        workflow: fc.integer({ min: 0, max: 3 }),
        copies: fc.integer({ min: 1, max: 2 }),
        during: fc.boolean(),
      }),
    },
    fc.record({
      kind: fc.constant('late' as const),
      ms: fc.integer({ min: 1, max: 2 * SETTLE_MS }),
      failure,
      workflow: fc.integer({ min: 0, max: 3 }),
    }),
    fc.record({
      kind: fc.constant('restamp' as const),
      pick: fc.nat(),
      ms: fc.integer({ min: 1, max: 2000 }),
    }),
    fc.record({ kind: fc.constant('callback' as const), pick: fc.nat(), final: fc.constantFrom(...FINAL) }),
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('advance' as const),
        ms: fc.integer({ min: 0, max: 30_000 }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('poll' as const),
        page: fc.integer({ min: 1, max: 3 }),
        failAt: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined, freq: 4 }),
        publish: fc.boolean(),
      }),
    },
    fc.record({ kind: fc.constant('die' as const) }),
    fc.record({
      kind: fc.constant('reload' as const),
      pages: fc.integer({ min: 1, max: 4 }),
      series: fc.integer({ min: 1, max: 3 }),
    }),
  );
}

const FINISHED = 'upstash_workflow_runs_finished_total';
const CALLBACKS = 'upstash_workflow_failure_callbacks_total';
const URL_BASE = 'https://w.test/';

/** Per run (its workflow), the series of `family` counting it, by their `state`. */
function byRun(series: ReadonlyMap<SeriesKey, number>, family: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const [key, value] of series) {
    if (!key.startsWith(`${family}{`)) continue;
    const id = (labelOf(key, 'workflow') ?? '').slice(URL_BASE.length);
    const states = out.get(id) ?? new Map<string, number>();
    states.set(labelOf(key, 'state') ?? '', value);
    out.set(id, states);
  }
  return out;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** Whether the run must be counted by the end: plausible, visible in time, never left unread. */
function mustCount(event: ModelEvent): boolean {
  if (!event.plausible || event.visibleAt === undefined || event.missable) return false;
  return event.visibleAt - Math.min(event.time, event.restampedFrom ?? event.time) <= SETTLE_MS;
}

/** What the model knows of a run beside ModelEvent: its failure function's state now. */
interface Run {
  readonly event: ModelEvent;
  readonly upstream: UpstreamEvent;
  failure: Failure;
  /** Its completion time as listed, while it is a plain number of ms. */
  completed: number | undefined;
}

/**
 * Plays `steps` on a fresh account polling `workflow_runs`, then reads everything and checks the
 * end. `pool`: the runs share four workflows and the cap starts at `series` (the fixed-set labels'
 * property); otherwise each run is its own workflow and the cap is wide.
 */
export async function playRuns(
  steps: readonly RunStep[],
  pool?: { readonly series: number },
  skip: readonly Check[] = [],
): Promise<void> {
  const account = new EventAccount([workflowRuns], {
    maxEventPages: 1,
    maxEventSeries: pool?.series ?? 10_000,
  });
  const counts = (series: ReadonlyMap<SeriesKey, number>): Map<string, number> =>
    pool === undefined
      ? new Map([...byRun(series, FINISHED)].map(([id, states]) => [id, sum(states.values())]))
      : new Map<string, number>();
  const model = new EventModel(account, { counts, timeFields: ['time', 'workflowRunCompletedAt'], skip });
  const { upstream } = account;
  const runs: Run[] = [];
  let serial = 0;
  const add = (step: Finish, at = account.clock): void => {
    const id = `r${serial++}`;
    const { field, at: completedAt } = timeOf(step.time, at, step.aheadMs);
    const created = completedAt - step.durationMs;
    const failed = step.state === 'RUN_FAILED';
    const body: Record<string, unknown> = {
      workflowRunId: id,
      workflowRunCreatedAt: created,
      workflowRunCompletedAt: field,
      workflowState: step.state,
      workflowUrl: `${URL_BASE}${pool === undefined ? id : `w${step.workflow}`}`,
      ...(failed && step.failure !== 'none' && { failureFunction: { state: step.failure } }),
    };
    const listed = upstream.add({
      id,
      state: step.state,
      at: created,
      body,
      copies: step.copies,
      visible: !step.during,
    });
    if (step.during) upstream.arriving.push(listed);
    const event = model.add({
      id,
      state: step.state,
      plausible: plausible(step.time),
      time: completedAt,
      visibleAt: step.during ? undefined : account.clock,
    });
    const completed = typeof field === 'number' && plausible(step.time) ? field : undefined;
    runs.push({ event, upstream: listed, failure: failed ? step.failure : 'none', completed });
  };
  const checkCallbacks = (series: ReadonlyMap<SeriesKey, number>, end: boolean): void => {
    for (const key of series.keys())
      if ((!skip.includes('I4') && key.startsWith(`${CALLBACKS}{`)) || key.startsWith(`${FINISHED}{`))
        expect(labelOf(key, 'state'), `I4: a fixed-set label folded: ${key}`).not.toBe('other');
    if (pool !== undefined) {
      if (!end || skip.includes('I4')) return;
      // Every failed run counted under the failure state it ended in, whatever the cap.
      for (const final of FINAL) {
        const ended = runs.filter((r) => r.failure === final);
        const must = ended.filter((r) => mustCount(r.event)).length;
        const may = sum(
          ended
            .filter((r) => r.event.plausible && r.event.visibleAt !== undefined)
            .map((r) => (r.event.restampedFrom === undefined ? 1 : 2)),
        );
        const counted = sum(
          [...series]
            .filter(([k]) => k.startsWith(`${CALLBACKS}{`) && labelOf(k, 'state') === final)
            .map(([, v]) => v),
        );
        expect(counted, `I1/I4: failed runs counted under state="${final}"`).toBeGreaterThanOrEqual(must);
        expect(counted, `I1/I4: failed runs counted under state="${final}"`).toBeLessThanOrEqual(may);
      }
      return;
    }
    if (skip.includes('I1-final')) return;
    const finished = byRun(series, FINISHED);
    for (const [id, states] of byRun(series, CALLBACKS)) {
      const run = runs.find((r) => r.event.id === id);
      const twice = run?.event.twice === true;
      expect(
        sum(states.values()),
        `I1: run ${id} counted ${sum(states.values())} times by its failure function`,
      ).toBeLessThanOrEqual(twice ? 2 : 1);
      if (!end || run === undefined || twice || sum(finished.get(id)?.values() ?? []) !== 1) continue;
      if (run.failure === 'CALLBACK_INPROGRESS') continue;
      expect(
        states.get(run.failure),
        `I1: run ${id}'s failure function counted in its final state ${run.failure}`,
      ).toBe(1);
    }
  };
  try {
    for (const s of steps) {
      if (s.kind === 'finish') for (let i = 0; i < s.count; i++) add(s);
      else if (s.kind === 'late')
        add({ ...LATE, failure: s.failure, workflow: s.workflow }, Math.max(account.clock - s.ms, START));
      else if (s.kind === 'restamp') {
        const candidates = runs.filter((r) => r.completed !== undefined);
        const run = candidates[s.pick % Math.max(1, candidates.length)];
        // Listed again later, never dated after the clock (that is a run dated ahead).
        if (run?.completed === undefined || run.completed + s.ms > account.clock) continue;
        run.event.restampedFrom ??= run.event.time;
        run.completed += s.ms;
        run.event.time += s.ms;
        run.upstream.body = { ...run.upstream.body, workflowRunCompletedAt: run.completed };
      } else if (s.kind === 'callback') {
        const pending = runs.filter((r) => r.failure === 'CALLBACK_INPROGRESS');
        const run = pending[s.pick % Math.max(1, pending.length)];
        if (run === undefined) continue;
        run.failure = s.final;
        run.upstream.body = { ...run.upstream.body, failureFunction: { state: s.final } };
      } else if (s.kind === 'advance') account.advance(s.ms);
      else if (s.kind === 'die') model.die();
      else if (s.kind === 'reload')
        account.reload({ maxEventPages: s.pages, ...(pool !== undefined && { maxEventSeries: s.series }) });
      else {
        upstream.pageSize = s.page;
        const polled = await account.poll(workflowRuns, s.failAt);
        model.afterPoll(polled, account.clock, s.publish);
        if (polled.ok) checkCallbacks(polled.series, false);
      }
    }
    account.advance(400_000);
    upstream.pageSize = 10;
    account.reload({ maxEventPages: 100 });
    for (let round = 0; round < 2; round++) {
      model.afterPoll(await account.poll(workflowRuns), account.clock, true);
      account.advance(1000);
    }
    checkCallbacks(model.latest, true);
    if (pool === undefined) model.checkEnd();
  } finally {
    await account.close();
  }
}
