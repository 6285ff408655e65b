import { gauge } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { fetchSchedules, type Schedule } from '../upstash/schedules.js';
import { counted, polled, someIds, type SourceKind } from './source.js';

const POLLED = polled('schedules');

const MS = 1000;

const METRICS = {
  schedules: gauge(
    'upstash_qstash_schedules',
    `Schedules upstream by paused state, including any omitted by max_schedules (count). ${POLLED}`,
  ),
  schedulesOmitted: gauge(
    'upstash_qstash_schedules_omitted',
    `Schedules not exported because of max_schedules; failing schedules are kept first, then the soonest next runs (count). ${POLLED}`,
  ),
  info: gauge('upstash_qstash_schedule_info', `A schedule and its cron expression (always 1). ${POLLED}`),
  paused: gauge(
    'upstash_qstash_schedule_paused',
    `Whether a schedule is paused (1 paused, 0 not). ${POLLED}`,
  ),
  nextRun: gauge(
    'upstash_qstash_schedule_next_run_timestamp_seconds',
    `When a schedule runs next (Unix time in seconds). ${POLLED}`,
    MS,
  ),
  lastRun: gauge(
    'upstash_qstash_schedule_last_run_timestamp_seconds',
    `When a schedule last ran, for schedules that have run (Unix time in seconds). ${POLLED}`,
    MS,
  ),
  lastRunFailed: gauge(
    'upstash_qstash_schedule_last_run_failed',
    `Whether a message of a schedule's last run failed (1 failed, 0 not). ${POLLED}`,
  ),
};

/**
 * The schedules kept under `limit`: failing ones first, then the soonest next run (a schedule without
 * one last), ties broken by ID so the cut is stable from poll to poll.
 */
export function keepSchedules(schedules: readonly Schedule[], limit: number): readonly Schedule[] {
  if (schedules.length <= limit) return schedules;
  const next = (s: Schedule): number => s.nextRunMs ?? Number.POSITIVE_INFINITY;
  return [...schedules]
    .sort(
      (a, b) =>
        Number(b.lastRunFailed === true) - Number(a.lastRunFailed === true) ||
        (next(a) === next(b) ? 0 : next(a) < next(b) ? -1 : 1) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .slice(0, limit);
}

/** The schedule samples of one account. A schedule's destination, body and headers are never exported. */
export function scheduleSamples(account: string, schedules: readonly Schedule[], limit: number): Sample[] {
  const kept = keepSchedules(schedules, limit);
  const accountLabel = ['account', account] as const;
  // A schedule whose isPaused came of the wrong type is in neither count.
  const paused = (state: boolean): number => schedules.filter((s) => s.paused === state).length;
  const samples: Sample[] = [
    sample(METRICS.schedules, [accountLabel, ['paused', 'false']], paused(false)),
    sample(METRICS.schedules, [accountLabel, ['paused', 'true']], paused(true)),
    sample(METRICS.schedulesOmitted, [accountLabel], schedules.length - kept.length),
  ];
  for (const schedule of kept) {
    const labels = [accountLabel, ['schedule_id', schedule.id]] as const;
    // A field Upstash sent of the wrong type gives no series (the cron label is empty instead).
    samples.push(sample(METRICS.info, [...labels, ['cron', schedule.cron ?? '']], 1));
    if (schedule.paused !== undefined) samples.push(sample(METRICS.paused, labels, schedule.paused ? 1 : 0));
    if (schedule.nextRunMs !== undefined) samples.push(sample(METRICS.nextRun, labels, schedule.nextRunMs));
    if (schedule.lastRunMs !== undefined) samples.push(sample(METRICS.lastRun, labels, schedule.lastRunMs));
    if (schedule.lastRunFailed !== undefined)
      samples.push(sample(METRICS.lastRunFailed, labels, schedule.lastRunFailed ? 1 : 0));
  }
  return samples;
}

/** What the landing page says of an account's schedules: the failing ones by ID, and a cap that cut. */
export function scheduleWarnings(schedules: readonly Schedule[], limit: number): string[] {
  const warnings: string[] = [];
  // Sorted, so that the IDs named are the same from poll to poll.
  const failing = schedules
    .filter((s) => s.lastRunFailed === true)
    .map((s) => s.id)
    .sort();
  if (failing.length > 0)
    warnings.push(`${counted(failing.length, 'schedule')} failing (last run failed): ${someIds(failing)}`);
  if (schedules.length > limit)
    warnings.push(`${schedules.length - limit} schedules not exported (max_schedules ${limit})`);
  return warnings;
}

/** QStash schedules: counts, next and last runs, and last-run failures, once per account. */
export const schedules: SourceKind<'schedules'> = {
  name: 'schedules',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, limits, signal, deadline }) {
    const { entries, rejected } = await fetchSchedules(client, { ...account, signal, deadline });
    return {
      samples: scheduleSamples(account.name, entries, limits.maxSchedules),
      rejectedFields: rejected,
      warnings: scheduleWarnings(entries, limits.maxSchedules),
    };
  },
};
