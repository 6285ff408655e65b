/**
 * The moment the simulated account's event logs open: the first time any of them (QStash's log,
 * Workflow's runs, the audit log) is read. At that moment the logs gain their opening events: one
 * delivery error and one delivery failure, one delivery, the finish of two runs begun when the simulator started (one
 * succeeds; one fails, its failure function run), and one audit event.
 *
 * Why at the first read, not at the simulator's start: an exporter counts the events from the moment
 * it began polling on (its watermark: docs/metrics.md, Delivery errors and workflow runs), and `--demo`
 * starts the simulator first. An event dated at the first read is newer than that moment, and not newer than
 * the read that serves it, so the exporter's first poll counts it: every event counter is on /metrics from
 * the first poll of a fresh demo. A frozen simulator has no opening (time stands still: nothing happens after
 * start-up).
 */
export class Opening {
  readonly #now: () => number;
  readonly #frozen: boolean;
  #at: number | undefined;

  constructor(now: () => number, frozen: boolean) {
    this.#now = now;
    this.#frozen = frozen;
  }

  /**
   * Unix ms of the opening, fixed by the first call (a log about to be read); undefined when frozen.
   * Every log's answer calls it before it reads the clock for its own events.
   */
  at(): number | undefined {
    if (this.#frozen) return undefined;
    this.#at ??= this.#now();
    return this.#at;
  }
}
