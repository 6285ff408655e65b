import { limitSampleLabels } from '../metrics/label-limit.js';
import { AbortedError, HttpStatusError, RetiredEndpointError, UpstashError } from '../upstash/errors.js';
import { failureWords } from '../upstash/failure-words.js';
import type { PollResult } from '../vocabulary.js';
import type { FailureReason } from './self-metrics.js';
import { armStaleness, settleStaleness } from './staleness.js';
import type { PollerEnv, UnitState } from './unit-state.js';
import { pollWarnings } from './warnings.js';

/** Why a scheduled poll did not run. */
export type SkipReason = 'still_running' | 'retry_after' | 'missed_tick';

/**
 * Starts a poll of the unit unless one is running or Upstash asked us to wait (then the tick is
 * skipped and counted); `deadline` is the Unix ms by which it should be over.
 */
export function tick(state: UnitState, deadline: number, env: PollerEnv): void {
  if (state.running !== undefined) {
    skip(state, 'still_running', env);
    return;
  }
  if (env.now() < state.notBefore) {
    skip(state, 'retry_after', env);
    return;
  }
  state.running = execute(state, deadline, env).finally(() => {
    state.running = undefined;
    settleStaleness(state, env);
  });
}

/** Counts and logs a scheduled poll that did not run. */
export function skip(state: UnitState, reason: SkipReason, env: PollerEnv): void {
  const { labels } = state;
  state.outlet?.metrics.pollSkipped(labels);
  if (reason === 'retry_after') {
    const until = new Date(state.notBefore).toISOString();
    env.logger.info({ ...labels, reason, until }, 'poll skipped');
  } else {
    env.logger.warn({ ...labels, reason }, 'poll skipped');
  }
}

/**
 * One poll of a unit, timed and reported: node_exporter's execute(), the one place every source's
 * outcome goes through. A success is recorded first (series, health, staleness clock), and only then
 * may the poll's news reach other units ({@link PollResult.onRecorded}); a unit removed or replaced
 * meanwhile records nothing, or passes no news on.
 */
async function execute(state: UnitState, deadline: number, env: PollerEnv): Promise<void> {
  const { unit } = state;
  const started = env.now();
  state.lastPollAt = started;
  state.outlet?.metrics.pollStarted(state.labels);
  try {
    const polled = await unit.poll({ signal: state.abort.signal, deadline });
    if (state.removed) return;
    recordSuccess(state, polled, started, env);
    if (state.unit === unit) polled.onRecorded?.();
  } catch (error) {
    recordFailure(state, error, env.now() - started, env);
  } finally {
    state.outlet?.metrics.pollEnded(state.labels);
  }
}

function recordSuccess(state: UnitState, polled: PollResult, started: number, env: PollerEnv): void {
  const { labels, outlet } = state;
  if (outlet !== undefined) {
    const { samples, truncated } = limitSampleLabels(polled.samples);
    outlet.series.replace(state.unit.id, samples);
    const labelValuesCut = truncated + (polled.labelValuesDropped ?? 0);
    outlet.metrics.labelValuesTruncated(labels, labelValuesCut);
    const logs = polled.logs ?? [];
    reportRejected(state, polled.rejectedFields ?? [], new Set(logs.map((line) => line.field)), env);
    for (const { level, msg, count, field } of logs)
      env.logger[level]({ ...labels, ...(field !== undefined && { field }), count }, msg);
    state.warnings = pollWarnings({
      rejectedFields: polled.rejectedFields ?? [],
      labelValuesCut,
      burstWaits: polled.burstWaits ?? 0,
      warnings: polled.warnings ?? [],
      watched: polled.watched,
      watchedBefore: state.watched,
    });
    state.watched = polled.watched ?? {};
    const finished = env.now();
    const duration = (finished - started) / 1000;
    outlet.metrics.pollSucceeded(labels, duration, finished / 1000);
    state.lastSuccessAt = finished;
    state.lastDurationMs = finished - started;
    armStaleness(state, env);
    env.logger.debug({ ...labels, duration, series: samples.length }, 'poll succeeded');
  }
  state.outcome = 'ok';
  state.error = '';
}

/**
 * The one account of a failed poll: a removed unit's or an aborted poll's is none; Upstash's reason,
 * or `internal` for a fault of ours (never blamed on Upstash); a Retry-After is kept.
 */
function recordFailure(state: UnitState, error: unknown, durationMs: number, env: PollerEnv): void {
  if (state.removed) return;
  const duration = durationMs / 1000;
  const { labels, outlet } = state;
  if (error instanceof AbortedError) {
    env.logger.debug({ ...labels }, 'poll aborted by shutdown');
    return;
  }
  const reason: FailureReason = error instanceof UpstashError ? error.reason : 'internal';
  if (error instanceof HttpStatusError && error.retryAfterMs !== undefined) {
    state.notBefore = env.now() + error.retryAfterMs;
  }
  outlet?.metrics.pollFailed(labels, reason, duration);
  state.outcome = reason;
  state.lastDurationMs = durationMs;
  state.error = safeDetail(reason, error);
  if (error instanceof UpstashError) {
    const message =
      outlet === undefined
        ? "listing failed (another shard exports it; polled here to learn this shard's units)"
        : 'poll failed';
    env.logger.warn({ ...labels, reason, duration, err: error.message }, message);
    if (error instanceof RetiredEndpointError && !state.retiredNoticed) {
      // Once per unit: every poll's own warning says it failed again (docs/configuration.md,
      // Sources polled only when listed).
      state.retiredNoticed = true;
      env.logger.warn(
        { ...labels, endpoint: error.endpoint },
        'endpoint answered 404: Upstash may have retired it; remove the source from sources',
      );
    }
  } else {
    // Not Upstash's doing: a bug of ours. Keep running, but say so loudly, with the stack.
    env.logger.error({ ...labels, reason, duration, err: error }, 'poll failed unexpectedly');
  }
}

/**
 * A failure as the landing page may show it: the reason with the HTTP status, or with the cause in
 * fixed words (`network: connection refused`, `timeout: no answer within 10 s`), nothing else. The
 * error's message names the URL (which can carry credentials on a misconfigured base URL) and a
 * body's problem (which can quote upstream text), so neither is shown.
 */
function safeDetail(reason: FailureReason, error: unknown): string {
  if (error instanceof HttpStatusError) return `${reason} (HTTP ${error.status})`;
  const words = failureWords(error);
  return words === undefined ? reason : `${reason}: ${words}`;
}

/**
 * Counts every rejected field, and logs it when it goes wrong and when it comes right again; but a
 * field the poll's own lines say (`said`: at every poll) is not logged here too.
 */
function reportRejected(
  state: UnitState,
  fields: readonly string[],
  said: ReadonlySet<string | undefined>,
  env: PollerEnv,
): void {
  const all = new Set(fields);
  for (const field of all) state.outlet?.metrics.fieldRejected(state.labels, field);
  const now = new Set([...all].filter((field) => !said.has(field)));
  for (const field of now) {
    if (!state.rejected.has(field)) {
      env.logger.warn(
        { ...state.labels, field },
        'field rejected: wrong type upstream, skipped alone (the API may have changed)',
      );
    }
  }
  for (const field of state.rejected) {
    if (!now.has(field)) env.logger.info({ ...state.labels, field }, 'field accepted again');
  }
  state.rejected = now;
}
