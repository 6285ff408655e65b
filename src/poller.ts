import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { DataSeries } from './metrics/data-series.js';
import type { Sample } from './metrics/samples.js';
import type { SelfMetrics, SourceLabels } from './metrics/self-metrics.js';
import { AbortedError, HttpStatusError, UpstashError, type FailureReason } from './upstash/errors.js';

/** What a poll may use: the shutdown signal and the time by which it should be over. */
export interface PollContext {
  readonly signal: AbortSignal;
  /** Unix ms of the source's next tick. */
  readonly deadline: number;
}

/** One thing polled on its own: a QStash source of an account, or one database's stats. */
export interface PollSource {
  /** Unique and stable: orders the exposition and names the source in logs. */
  readonly id: string;
  readonly labels: SourceLabels;
  poll(context: PollContext): Promise<Sample[]>;
}

/** Sources that share a schedule (one config entry). */
export interface PollJob {
  readonly cron: string;
  readonly intervalMs: number;
  readonly sources: readonly PollSource[];
}

/** What the landing page shows of a source. */
export interface SourceStatus {
  readonly labels: SourceLabels;
  /** `ok`, a failure reason, or `pending` before the first poll ends. */
  readonly outcome: 'ok' | 'pending' | FailureReason;
  readonly lastPollAt: number | undefined;
  readonly lastSuccessAt: number | undefined;
  readonly running: boolean;
  readonly stale: boolean;
}

/** Dependencies of the {@link Poller}; the clock is injectable for tests. */
export interface PollerOptions {
  readonly jobs: readonly PollJob[];
  readonly series: DataSeries;
  readonly metrics: SelfMetrics;
  readonly logger: Logger;
  readonly now?: () => number;
  /**
   * State carried over from the poller this one replaces (a reload), by source id: series keep the
   * staleness deadline they had, and a Retry-After still runs.
   */
  readonly carryOver?: ReadonlyMap<string, CarriedState>;
}

/** What a source's state outlives a reload with. */
export interface CarriedState {
  readonly lastSuccessAt: number | undefined;
  readonly notBefore: number;
}

/** A source's values outlive failures for this many intervals after its last success. */
export const STALE_AFTER_INTERVALS = 3;

const MAX_TIMEOUT_MS = 2 ** 31 - 1;

interface SourceState {
  readonly source: PollSource;
  readonly intervalMs: number;
  running: Promise<void> | undefined;
  outcome: SourceStatus['outcome'];
  lastPollAt: number | undefined;
  lastSuccessAt: number | undefined;
  /** Retry-After: no poll before this Unix ms. */
  notBefore: number;
  staleTimer: NodeJS.Timeout | undefined;
}

/**
 * Schedules the polls (node-cron), keeps each source single-flight, and turns outcomes into series
 * and health metrics. A tick that finds the previous poll still running, or falls inside a
 * Retry-After wait, is skipped and counted. Scrapes never reach this class.
 */
export class Poller {
  readonly #options: PollerOptions;
  readonly #now: () => number;
  readonly #states: SourceState[] = [];
  readonly #tasks: ScheduledTask[] = [];
  readonly #shutdown = new AbortController();

  constructor(options: PollerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    for (const job of options.jobs) {
      for (const source of job.sources) {
        options.metrics.declareSource(source.labels);
        this.#states.push({
          source,
          intervalMs: job.intervalMs,
          running: undefined,
          outcome: 'pending',
          lastPollAt: undefined,
          lastSuccessAt: options.carryOver?.get(source.id)?.lastSuccessAt,
          notBefore: options.carryOver?.get(source.id)?.notBefore ?? 0,
          staleTimer: undefined,
        });
      }
    }
  }

  /** Polls every source now, then on its schedule. */
  start(): void {
    const cronLogger = this.#options.logger.child({ component: 'node-cron' });
    for (const job of this.#options.jobs) {
      const states = this.#states.filter((state) => job.sources.includes(state.source));
      // A poll should be over by the next tick: retries and Retry-After waits must fit before it.
      const nextTick = (): number => task.getNextRun()?.getTime() ?? this.#now() + job.intervalMs;
      const task: ScheduledTask = cron.schedule(
        job.cron,
        () => {
          for (const state of states) this.#tick(state, nextTick());
        },
        {
          logger: {
            info: (message) => cronLogger.debug(message),
            warn: (message) => cronLogger.warn(message),
            error: (message) => cronLogger.error(String(message)),
            debug: (message) => cronLogger.debug(String(message)),
          },
        },
      );
      // node-cron drops a tick whose timer fired over a second late (a blocked event loop): that is
      // a skipped poll too.
      task.on('execution:missed', () => {
        for (const state of states) this.#skip(state, 'missed_tick');
      });
      this.#tasks.push(task);
      for (const state of states) {
        if (state.lastSuccessAt !== undefined) this.#armStaleness(state);
        this.#tick(state, nextTick());
      }
    }
  }

  /** Stops the schedule, aborts polls in flight and waits for them to settle. */
  async stop(): Promise<void> {
    for (const task of this.#tasks) await task.destroy();
    this.#shutdown.abort();
    for (const state of this.#states) await state.running;
    for (const state of this.#states) clearTimeout(state.staleTimer);
  }

  /** True once every source has finished its first poll, successful or not. */
  get ready(): boolean {
    return this.#states.every((state) => state.outcome !== 'pending');
  }

  /** What a replacing poller carries over, by source id. */
  carryOver(): Map<string, CarriedState> {
    return new Map(
      this.#states.map((state) => [
        state.source.id,
        { lastSuccessAt: state.lastSuccessAt, notBefore: state.notBefore },
      ]),
    );
  }

  /** A snapshot of every source, in configuration order. */
  status(): SourceStatus[] {
    return this.#states.map((state) => ({
      labels: state.source.labels,
      outcome: state.outcome,
      lastPollAt: state.lastPollAt,
      lastSuccessAt: state.lastSuccessAt,
      running: state.running !== undefined,
      stale: state.lastSuccessAt !== undefined && !this.#options.series.has(state.source.id),
    }));
  }

  #tick(state: SourceState, deadline: number): void {
    if (this.#shutdown.signal.aborted) return;
    if (state.running !== undefined) {
      this.#skip(state, 'still_running');
      return;
    }
    if (this.#now() < state.notBefore) {
      this.#skip(state, 'retry_after');
      return;
    }
    state.running = this.#poll(state, deadline).finally(() => {
      state.running = undefined;
    });
  }

  #skip(state: SourceState, reason: 'still_running' | 'retry_after' | 'missed_tick'): void {
    const { labels } = state.source;
    this.#options.metrics.pollSkipped(labels);
    if (reason === 'retry_after') {
      const until = new Date(state.notBefore).toISOString();
      this.#options.logger.info({ ...labels, reason, until }, 'poll skipped');
    } else {
      this.#options.logger.warn({ ...labels, reason }, 'poll skipped');
    }
  }

  async #poll(state: SourceState, deadline: number): Promise<void> {
    const { metrics, logger, series } = this.#options;
    const { source } = state;
    const labels = source.labels;
    const started = this.#now();
    metrics.pollStarted(labels);
    state.lastPollAt = started;
    const elapsed = (): number => (this.#now() - started) / 1000;
    try {
      const samples = await source.poll({ signal: this.#shutdown.signal, deadline });
      const finished = this.#now();
      series.replace(source.id, samples);
      metrics.pollSucceeded(labels, elapsed(), finished / 1000);
      state.outcome = 'ok';
      state.lastSuccessAt = finished;
      this.#armStaleness(state);
      logger.debug({ ...labels, duration: elapsed(), series: samples.length }, 'poll succeeded');
    } catch (error) {
      if (error instanceof AbortedError) {
        logger.debug({ ...labels }, 'poll aborted by shutdown');
        return;
      }
      const reason: FailureReason = error instanceof UpstashError ? error.reason : 'invalid_response';
      if (error instanceof HttpStatusError && error.retryAfterMs !== undefined) {
        state.notBefore = this.#now() + error.retryAfterMs;
      }
      metrics.pollFailed(labels, reason, elapsed());
      state.outcome = reason;
      const fields = {
        ...labels,
        reason,
        duration: elapsed(),
        err: error instanceof Error ? error.message : String(error),
      };
      if (error instanceof UpstashError) logger.warn(fields, 'poll failed');
      // Not an Upstash error: a bug of ours. Keep running, but say so loudly, with the stack.
      else
        logger.error(
          { ...fields, stack: error instanceof Error ? error.stack : undefined },
          'poll failed unexpectedly',
        );
    }
  }

  /** Drops the source's series when no success comes within the staleness window. */
  #armStaleness(state: SourceState): void {
    clearTimeout(state.staleTimer);
    const dropAt = (state.lastSuccessAt ?? this.#now()) + STALE_AFTER_INTERVALS * state.intervalMs;
    const check = (): void => {
      const remaining = dropAt - this.#now();
      if (remaining > 0) {
        // setTimeout cannot wait longer than 2^31-1 ms (~24.8 days); daily schedules need more.
        state.staleTimer = setTimeout(check, Math.min(remaining, MAX_TIMEOUT_MS));
        state.staleTimer.unref();
        return;
      }
      this.#options.series.drop(state.source.id);
      this.#options.logger.warn(
        { ...state.source.labels, since: new Date(state.lastSuccessAt ?? 0).toISOString() },
        'series dropped: no successful poll for 3 intervals',
      );
    };
    check();
  }
}
