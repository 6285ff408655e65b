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
import { parseUrl } from './url-origin.js';

/**
 * What the exporter reads of a workflow run (docs/metrics.md, Delivery errors and workflow runs).
 * Nothing else is kept.
 */
export interface WorkflowRun {
  readonly workflowRunId: string;
  /** Unix ms. */
  readonly workflowRunCreatedAt: number;
  /** Unix ms; absent while the run is in progress. */
  readonly workflowRunCompletedAt?: number | undefined;
  readonly workflowState?: string | undefined;
  /** The workflow's URL without its query, fragment and user info (origin + path). */
  readonly workflow?: string | undefined;
  /**
   * The state of its failure function as Upstash spells it (`CALLBACK_FAIL`); '' when it has one
   * whose state is not given; absent when it has none.
   */
  readonly failureFunctionState?: string | undefined;
}

/** Runs per page in run mode (`groupBy=workflowRunId`): Upstash's documented maximum, not sent. */
export const RUN_PAGE_SIZE = 10;

/** The states of finished runs counted, and the one read whole as a gauge. */
export const FINISHED_RUN_STATES = ['RUN_SUCCESS', 'RUN_FAILED', 'RUN_CANCELED'] as const;
export type FinishedRunState = (typeof FINISHED_RUN_STATES)[number];
export const RUN_STARTED = 'RUN_STARTED';

/** A workflow URL as its label: origin and path only, or undefined when it is no http(s) URL. */
export function workflowOf(text: string): string | undefined {
  const url = parseUrl(text);
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  return `${url.origin}${url.pathname}`;
}

// A failure function is an object whose `state` alone is read (its URL, headers and responses may
// hold a customer's secret); some clients have typed it as a string: a failure function whose state
// is not given, as is an object without one (docs/metrics.md, Delivery errors and workflow runs).
const failureFunction = z.union([
  z.object({ state: z.string() }).transform((f) => f.state),
  z.object({}).transform(() => ''),
  z.string().transform(() => ''),
]);

// A run carries its steps (bodies, headers), its response, the caller's IP, labels, the failure
// function's details: only the six fields named here are parsed. The run's ID and creation time are
// its identity: all-or-nothing.
const workflowRun = z.object({
  workflowRunId: z.string(),
  workflowRunCreatedAt: number,
  workflowRunCompletedAt: optional(number),
  workflowState: optional(z.string()),
  workflowUrl: optional(z.string().transform(workflowOf)),
  failureFunction: optional(failureFunction),
});

function toRun({
  workflowUrl,
  failureFunction,
  ...run
}: Tolerated<z.output<typeof workflowRun>>): WorkflowRun {
  return { ...run, workflow: workflowUrl, failureFunctionState: failureFunction };
}

/** {@link workflowRun} and {@link toRun} by hand (schema.ts, EntryReader): the same verdicts and names. */
export function readRun(raw: unknown, rejected: Set<string>): WorkflowRun | undefined {
  const entry = entryObject(raw);
  if (entry === undefined) return undefined;
  const { workflowRunId, workflowRunCreatedAt } = entry;
  if (typeof workflowRunId !== 'string' || !isNumber(workflowRunCreatedAt)) return undefined;
  const workflowRunCompletedAt = numberField(entry, 'workflowRunCompletedAt', rejected);
  const workflowState = textField(entry, 'workflowState', rejected);
  const url = textField(entry, 'workflowUrl', rejected);
  return {
    workflowRunId,
    workflowRunCreatedAt,
    workflowRunCompletedAt,
    workflowState,
    workflow: url === undefined ? undefined : workflowOf(url),
    failureFunctionState: failureStateField(entry, rejected),
  };
}

/** {@link failureFunction} by hand, as {@link optional} has it. */
function failureStateField(entry: Readonly<Record<string, unknown>>, rejected: Set<string>) {
  const value = entry.failureFunction;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return '';
  const object = entryObject(value);
  if (object === undefined) {
    rejected.add('failureFunction');
    return undefined;
  }
  return typeof object.state === 'string' ? object.state : '';
}

const RUN_PAGES = {
  listFields: ['runs'],
  count: RUN_PAGE_SIZE,
  sendCount: false,
  query: { groupBy: 'workflowRunId', trimBody: -1 },
  entry: workflowRun,
  toEntry: toRun,
  read: readRun,
} as const;

/** `/v2/workflows/logs` (documented), `/v2/workflows/events` (what `@upstash/workflow` calls). */
export const WORKFLOW_RUNS: EventList<typeof workflowRun, WorkflowRun> = {
  documented: { ...RUN_PAGES, path: '/v2/workflows/logs' },
  sdk: { ...RUN_PAGES, path: '/v2/workflows/events' },
};
