import type { Limits, PollLog } from '../vocabulary.js';
import { FUTURE_HORIZON_SECONDS, type ScanResult } from './event-rule.js';
import { counted } from './source.js';

// What the event sources say of a poll on the landing page (PollResult.warnings; docs/metrics.md,
// Event counters), besides what the poller says of every source (rejected fields, label values cut):
// the scans the page cap stopped and the events they left uncounted, the events dated in the future or
// with a time that is no time, and the events counted under "other". Counts, caps and the states as sent upstream only: never a
// destination, workflow, action, actor or the refused time itself.

/** What an event refused for a time that is no time had instead (docs/metrics.md, Event counters). */
const IMPLAUSIBLE = 'with a time before 2015, negative or not a number';

/** The warnings of one poll's scans, gathered state by state. */
export class ScanWarnings {
  readonly #stopped: string[] = [];
  #unreadSeconds = 0;
  #other = 0;
  #future = 0;
  #implausible = 0;

  /** Takes the outcome of one (source, state)'s scan. */
  add(state: string, result: ScanResult): void {
    if (!result.state.complete) {
      this.#stopped.push(state);
      this.#unreadSeconds += result.unreadSeconds;
    }
    this.#other += result.truncated;
    this.#future += result.future;
    this.#implausible += result.implausible;
  }

  /**
   * `scan stopped at max_event_pages (10 pages) for ERROR: 42 s of the log not read, its events not
   * counted`, and `3 events counted under "other": max_event_series (500 label sets) reached`.
   */
  warnings(limits: Pick<Limits, 'maxEventPages' | 'maxEventSeries'>, what: string): string[] {
    const warnings: string[] = [];
    if (this.#stopped.length > 0)
      warnings.push(
        `scan stopped at max_event_pages (${counted(limits.maxEventPages, 'page')}) for ${this.#stopped.join(', ')}: ${Math.ceil(this.#unreadSeconds)} s of the ${what} not read, its events not counted`,
      );
    if (this.#future > 0)
      warnings.push(
        `${counted(this.#future, 'event')} dated more than ${FUTURE_HORIZON_SECONDS / 60} minutes ahead of the exporter's clock not counted`,
      );
    if (this.#implausible > 0)
      warnings.push(`${counted(this.#implausible, 'event')} ${IMPLAUSIBLE} not counted`);
    if (this.#other > 0)
      warnings.push(
        `${counted(this.#other, 'event')} counted under "other": max_event_series (${counted(limits.maxEventSeries, 'label set')}) reached`,
      );
    return warnings;
  }

  /**
   * The poll's log lines of the events refused for their time (dated ahead; no time): at every poll
   * that refuses one, with their count only (docs/operations.md, Logs).
   */
  logs(): PollLog[] {
    const logs: PollLog[] = [];
    if (this.#future > 0) {
      const msg = `events dated more than ${FUTURE_HORIZON_SECONDS / 60} minutes ahead of the exporter's clock refused: not counted`;
      logs.push({ level: 'warn', msg, count: this.#future, field: 'time' });
    }
    if (this.#implausible > 0)
      logs.push({
        level: 'warn',
        msg: `events ${IMPLAUSIBLE} refused: not counted`,
        count: this.#implausible,
        field: 'time',
      });
    return logs;
  }
}

/**
 * `2 deliveries FAILED since the previous poll`: what one poll counted of a state that is trouble,
 * `since the exporter started` on the state's first poll (which counts from the start).
 */
export function sincePoll(what: string, first: boolean): string {
  return `${what} since ${first ? 'the exporter started' : 'the previous poll'}`;
}
