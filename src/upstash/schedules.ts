import { z } from 'zod';
import type { Target, UpstashClient } from './client.js';
import { parseListing, type Listing } from './schema.js';
import { number, optional, optionalText } from './tolerance.js';

/**
 * One QStash schedule as the exporter keeps it. Its destination, body, headers and callbacks are
 * not kept at all: they can hold secrets, and nothing here needs them.
 */
export interface Schedule {
  readonly id: string;
  /** Absent when Upstash did not send it, or sent it of the wrong type (as below). */
  readonly cron?: string;
  readonly paused?: boolean;
  /** Unix ms of the next run, when Upstash gives one. */
  readonly nextRunMs?: number;
  /** Unix ms of the last run, when there was one. */
  readonly lastRunMs?: number;
  /** Whether any message of the last run ended in `FAIL`. */
  readonly lastRunFailed?: boolean;
}

// The ID is the schedule's identity: a missing, empty or repeated one is a changed API, loud. Only
// the fields exported are read; the rest (destination, body, header, callback, …) are stripped.
const entry = z.object({
  scheduleId: z.string().min(1),
  cron: optionalText,
  isPaused: optional(z.boolean(), false),
  nextScheduleTime: optional(number),
  lastScheduleTime: optional(number),
  // No states: no run yet, so none failed.
  lastScheduleStates: optional(z.record(z.string(), z.string()), {}),
});

/** Parses a schedule list body (an array); throws on any other shape. */
export function parseSchedules(json: unknown, url = 'schedules'): Promise<Listing<Schedule>> {
  return parseListing(json, url, {
    entry,
    keyField: 'scheduleId',
    toEntry: (s) => ({
      id: s.scheduleId,
      ...(s.cron !== undefined && { cron: s.cron }),
      ...(s.isPaused !== undefined && { paused: s.isPaused }),
      ...(s.nextScheduleTime !== undefined && { nextRunMs: s.nextScheduleTime }),
      ...(s.lastScheduleTime !== undefined && { lastRunMs: s.lastScheduleTime }),
      ...(s.lastScheduleStates !== undefined && {
        lastRunFailed: Object.values(s.lastScheduleStates).includes('FAIL'),
      }),
    }),
  });
}

/** GET `{url}/v2/schedules`: every schedule with its times and last states. */
export async function fetchSchedules(client: UpstashClient, target: Target): Promise<Listing<Schedule>> {
  const url = `${target.baseUrl}/v2/schedules`;
  return parseSchedules(await client.getJson({ ...target, url }), url);
}
