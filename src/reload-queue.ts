import type { Logger } from 'pino';
import { ConfigError, formatProblem } from './config/errors.js';
import type { Config } from './config/types.js';
import type { ReloadOutcome } from './server/routes.js';

/**
 * The one reload queue, for SIGHUP and `POST /-/reload` alike. Reloads run one after another; one
 * asked for while another waits to start joins it, with the latest configuration (a burst of SIGHUPs
 * is one reload), and shares its outcome. A loader that throws a ConfigError keeps the running
 * configuration (the problems are logged and in the outcome); a reload that fails is logged.
 */
export class ReloadQueue {
  readonly #apply: (next: Config) => Promise<void>;
  readonly #logger: Logger;
  #stopped = false;
  #reloading: Promise<ReloadOutcome> = Promise.resolve({ result: 'applied' });
  #waiting: (() => Config) | undefined;

  constructor(apply: (next: Config) => Promise<void>, logger: Logger) {
    this.#apply = apply;
    this.#logger = logger;
  }

  /** Queues a reload to `next`, or to what a loader reads when the reload runs. */
  async request(next: Config | (() => Config)): Promise<ReloadOutcome> {
    const joins = this.#waiting !== undefined;
    this.#waiting = typeof next === 'function' ? next : () => next;
    if (joins) return this.#reloading;
    this.#reloading = this.#reloading
      .then(async () => this.#runWaiting())
      .catch((error: unknown): ReloadOutcome => {
        this.#logger.error({ err: error }, 'reload failed');
        return { result: 'failed' };
      });
    return this.#reloading;
  }

  /**
   * No reload starts from now on; resolves when the one in progress is over (one that finished after
   * the exporter stopped would start polls nobody stops).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#reloading;
  }

  /** Whether {@link stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  async #runWaiting(): Promise<ReloadOutcome> {
    const load = this.#waiting;
    this.#waiting = undefined;
    if (this.#stopped || load === undefined) return { result: 'stopping' };
    let loaded: Config;
    try {
      loaded = load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.#logger.error(
        { problems: error.problems.map(formatProblem) },
        'configuration invalid; keeping the running one',
      );
      return { result: 'invalid', problems: error.problems };
    }
    await this.#apply(loaded);
    return { result: 'applied' };
  }
}

/**
 * `next` with the settings a reload cannot change (the listen address, web config file, log format
 * and sharding) kept as they run; each one configured differently is warned about.
 */
export function keepRestartSettings(running: Config, next: Config, logger: Logger): Config {
  for (const [setting, runningValue, configured] of [
    ['listen address', running.listenAddress, next.listenAddress],
    ['web config file', running.webConfigFile, next.webConfigFile],
    ['log format', running.logFormat, next.logFormat],
    ['shard', running.sharding.shard, next.sharding.shard],
    ['total shards', running.sharding.total, next.sharding.total],
  ] as const) {
    if (configured !== runningValue) {
      logger.warn(
        { setting, running: runningValue, configured },
        'this setting needs a restart; keeping the running one',
      );
    }
  }
  return {
    ...next,
    listenAddress: running.listenAddress,
    webConfigFile: running.webConfigFile,
    logFormat: running.logFormat,
    sharding: running.sharding,
  };
}
