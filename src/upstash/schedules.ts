import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { arrayBody, assertUnique, parseEntries, parseEntriesInSlices, responseFailure } from './schema.js';

/**
 * One QStash schedule as the exporter keeps it. Its destination, body, headers and callbacks are
 * not kept at all: they can hold secrets, and nothing here needs them.
 */
export interface Schedule {
  readonly id: string;
  readonly cron: string;
  readonly paused: boolean;
  /** Unix ms of the next run, when Upstash gives one. */
  readonly nextRunMs?: number;
  /** Unix ms of the last run, when there was one. */
  readonly lastRunMs?: number;
  /** Whether any message of the last run ended in `FAIL`. */
  readonly lastRunFailed: boolean;
}

// The ID is the schedule's identity: a missing, empty or repeated one is a changed API, loud. Only
// the fields exported are read; the rest (destination, body, header, callback, …) are stripped.
const entry = z.object({
  scheduleId: z.string().min(1),
  cron: z.string(),
  isPaused: z.boolean().optional(),
  nextScheduleTime: z.number().optional(),
  lastScheduleTime: z.number().optional(),
  lastScheduleStates: z.record(z.string(), z.string()).optional(),
});

/** Parses a schedule list body (an array); throws on any other shape. */
export function parseSchedules(json: unknown, url = 'schedules'): Schedule[] {
  const fail = responseFailure(url);
  return toSchedules(parseEntries(arrayBody(json, fail), entry, '', fail), fail);
}

/** GET `{url}/v2/schedules`: every schedule with its times and last states. */
export async function fetchSchedules(client: UpstashClient, target: Target): Promise<Schedule[]> {
  const url = `${target.baseUrl}/v2/schedules`;
  const json = await client.getJson({ ...target, url });
  const fail = responseFailure(url);
  return toSchedules(await parseEntriesInSlices(arrayBody(json, fail), entry, '', fail), fail);
}

function toSchedules(
  entries: readonly z.output<typeof entry>[],
  fail: (problem: string) => Error,
): Schedule[] {
  assertUnique(entries, (s) => s.scheduleId, 'scheduleId', fail);
  return entries.map((s) => ({
    id: s.scheduleId,
    cron: s.cron,
    paused: s.isPaused ?? false,
    ...(s.nextScheduleTime !== undefined && { nextRunMs: s.nextScheduleTime }),
    ...(s.lastScheduleTime !== undefined && { lastRunMs: s.lastScheduleTime }),
    lastRunFailed: Object.values(s.lastScheduleStates ?? {}).includes('FAIL'),
  }));
}
