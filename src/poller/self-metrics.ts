import type { Api } from '../upstash/client.js';
import type { UnitLabels } from '../vocabulary.js';
import {
  FAILURE_REASONS,
  healthKey,
  newRecord,
  type FailureReason,
  type HealthChanges,
  type HealthRecord,
  type HealthState,
} from './health.js';

export { FAILURE_REASONS, type FailureReason } from './health.js';

/**
 * The exporter's counts about itself, recorded by the poller and the HTTP client, as plain records
 * (health.ts): the poll worker hands those that changed over at each publication, and the serving
 * thread renders them. Nothing here is rendered.
 */
export interface SelfMetrics {
  /** Creates a source's counters at zero, so `increase()` sees its first failure. */
  declareSource(labels: UnitLabels): void;
  pollStarted(labels: UnitLabels): void;
  /** A poll ended, however (its outcome is recorded apart): only heard, nothing counted. */
  pollEnded(labels: UnitLabels): void;
  pollSucceeded(labels: UnitLabels, durationSeconds: number, atSeconds: number): void;
  pollFailed(labels: UnitLabels, reason: FailureReason, durationSeconds: number): void;
  pollSkipped(labels: UnitLabels): void;
  apiRequest(api: string, code: string): void;
  /** Counts one request that waited for its credential's burst limit to reset. */
  burstWait(api: Api): void;
  /** Counts one upstream field skipped alone for its wrong type. */
  fieldRejected(labels: UnitLabels, field: string): void;
  /** Counts label values of the source's latest poll that were cut to the length cap. */
  labelValuesTruncated(labels: UnitLabels, count: number): void;
  /** Removes every health series of a source that is no longer configured. */
  forgetSource(labels: UnitLabels): void;
  /** Drops the records of every unit whose key is not in `keys` (a restarted worker's leftovers). */
  keepOnly(keys: ReadonlySet<string>): void;
  /** Moves on every change recorded through this interface. */
  readonly version: number;
  /** What changed since the last call; the records are the caller's from now on (copies). */
  takeChanges(): HealthChanges;
}

/**
 * Creates the counts, continuing from `from` (what a dead worker last published, its counters
 * included: they never go back to 0), or from nothing; `onPoll` hears each unit's key
 * ({@link healthKey}) as its poll starts (`running` true) and as it ends (false).
 */
export function createSelfMetrics(
  from?: HealthState,
  onPoll?: (key: string, running: boolean) => void,
): SelfMetrics {
  const units = new Map<string, HealthRecord>(
    [...(from?.units ?? [])].map(([key, record]) => [key, copy(record)]),
  );
  const requests = new Map<string, number>(from?.requests ?? []);
  const burstWaits = new Map<Api, number>(from?.burstWaits ?? []);
  const dirty = new Set<string>();
  let requestsMoved = false;
  let burstWaitsMoved = false;
  let version = 0;

  const unit = (labels: UnitLabels): HealthRecord => {
    version++;
    const key = healthKey(labels);
    dirty.add(key);
    let health = units.get(key);
    if (health === undefined) units.set(key, (health = newRecord(labels)));
    return health;
  };

  return {
    get version() {
      return version;
    },
    declareSource(labels) {
      const health = unit(labels);
      health.polls ??= 0;
      health.skipped ??= 0;
      health.truncated ??= 0;
      for (const reason of FAILURE_REASONS) health.failures.set(reason, health.failures.get(reason) ?? 0);
    },
    pollStarted(labels) {
      const health = unit(labels);
      health.polls = (health.polls ?? 0) + 1;
      onPoll?.(healthKey(labels), true);
    },
    pollEnded(labels) {
      onPoll?.(healthKey(labels), false);
    },
    pollSucceeded(labels, durationSeconds, atSeconds) {
      const health = unit(labels);
      health.up = 1;
      health.duration = durationSeconds;
      health.lastSuccess = atSeconds;
    },
    pollFailed(labels, reason, durationSeconds) {
      const health = unit(labels);
      health.up = 0;
      health.duration = durationSeconds;
      health.failures.set(reason, (health.failures.get(reason) ?? 0) + 1);
    },
    pollSkipped(labels) {
      const health = unit(labels);
      health.skipped = (health.skipped ?? 0) + 1;
    },
    apiRequest(api, code) {
      version++;
      requestsMoved = true;
      const key = `${api}\u0000${code}`;
      requests.set(key, (requests.get(key) ?? 0) + 1);
    },
    burstWait(api) {
      version++;
      burstWaitsMoved = true;
      burstWaits.set(api, (burstWaits.get(api) ?? 0) + 1);
    },
    fieldRejected(labels, field) {
      const health = unit(labels);
      health.rejected.set(field, (health.rejected.get(field) ?? 0) + 1);
    },
    labelValuesTruncated(labels, count) {
      if (count === 0) return;
      const health = unit(labels);
      health.truncated = (health.truncated ?? 0) + count;
    },
    forgetSource(labels) {
      version++;
      const key = healthKey(labels);
      units.delete(key);
      dirty.add(key);
    },
    keepOnly(keys) {
      for (const key of [...units.keys()]) {
        if (keys.has(key)) continue;
        version++;
        units.delete(key);
        dirty.add(key);
      }
    },
    takeChanges() {
      const record = (key: string): HealthRecord | undefined => {
        const health = units.get(key);
        return health === undefined ? undefined : copy(health);
      };
      const changes: HealthChanges = {
        units: [...dirty].map((key) => [key, record(key)] as const),
        requests: requestsMoved ? new Map(requests) : undefined,
        burstWaits: burstWaitsMoved ? new Map(burstWaits) : undefined,
      };
      dirty.clear();
      requestsMoved = false;
      burstWaitsMoved = false;
      return changes;
    },
  };
}

/** A record of its own: one handed over is cloned when posted, but a test may read it meanwhile. */
function copy(record: HealthRecord): HealthRecord {
  return { ...record, failures: new Map(record.failures), rejected: new Map(record.rejected) };
}
