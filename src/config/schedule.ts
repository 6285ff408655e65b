import cron from 'node-cron';

/** When a source is polled: a node-cron expression (with seconds) and the time between two runs. */
export interface Schedule {
  readonly cron: string;
  /** Time between two runs; staleness (3 intervals) and Retry-After decisions are measured in it. */
  readonly intervalMs: number;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Runs looked ahead to measure a cron expression's interval. */
const GAPS_SAMPLED = 64;

/** What an `interval` must be: also the message for one that is not text. */
export const INTERVAL_EXPECTED = 'must be a duration like 30s, 5m or 1h';
/** What a `schedule` must be, first of all: also the message for one that is not text. */
export const CRON_EXPECTED = 'must be a node-cron expression with 6 fields (seconds first)';

/** Parses `Ns`, `Nm` or `Nh` into milliseconds; undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9][0-9]*)([smh])$/.exec(text);
  if (match === null) return undefined;
  const [, amount, unit] = match as unknown as [string, string, keyof typeof UNIT_MS];
  return Number(amount) * UNIT_MS[unit];
}

/**
 * The cron expression that fires every `intervalMs`, or an error message. Cron fields restart at each
 * minute, hour and day, so only divisors of 60 s, 60 m and 24 h give evenly spaced ticks.
 */
export function intervalToCron(intervalMs: number): { cron: string } | { error: string } {
  const seconds = intervalMs / 1000;
  if (Number.isInteger(seconds) && seconds > 0) {
    if (seconds < 60 && 60 % seconds === 0) return { cron: `*/${seconds} * * * * *` };
    const minutes = seconds / 60;
    if (Number.isInteger(minutes) && minutes < 60 && 60 % minutes === 0)
      return { cron: `0 */${minutes} * * * *` };
    const hours = minutes / 60;
    if (Number.isInteger(hours) && hours <= 24 && 24 % hours === 0) {
      return { cron: hours === 24 ? '0 0 0 * * *' : `0 0 */${hours} * * *` };
    }
  }
  return {
    error:
      'must be an interval cron can express evenly: a divisor of 60s (1s, 2s, … 30s), of 60m (1m, 2m, … 30m) or of 24h (1h, 2h, … 24h); use `schedule` for anything else',
  };
}

/** Validates a node-cron expression with seconds and measures its interval; an error message otherwise. */
export function scheduleFromCron(expression: string): Schedule | { error: string } {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 6) return { error: CRON_EXPECTED };
  if (!cron.validate(expression)) return { error: 'is not a valid node-cron expression' };
  // The interval stands for the longest gap among the next runs: for an irregular expression such as
  // `0,10 * * * * *` that is 50 s, so staleness (3 intervals) never drops good data between two
  // normal runs, whatever the start time.
  const task = cron.createTask(expression, () => undefined);
  try {
    const runs = task.getNextRuns(GAPS_SAMPLED + 1).map((date) => date.getTime());
    if (runs.length < 2) return { error: 'never fires' };
    const gaps = runs.slice(1).map((at, index) => at - (runs[index] ?? at));
    return { cron: expression, intervalMs: Math.max(...gaps) };
  } finally {
    void task.destroy();
  }
}

/** The schedule for an `interval` like `30s`, or an error message. */
export function scheduleFromInterval(text: string): Schedule | { error: string } {
  const intervalMs = parseDuration(text);
  if (intervalMs === undefined) return { error: INTERVAL_EXPECTED };
  const result = intervalToCron(intervalMs);
  if ('error' in result) return result;
  return { cron: result.cron, intervalMs };
}
