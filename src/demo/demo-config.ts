import { Secret } from '../config/secret.js';
import { scheduleFromInterval, type Schedule } from '../config/schedule.js';
import type { CommonSettings } from '../config/load.js';
import { DEFAULTS, MANAGEMENT_SOURCES, QSTASH_SOURCES, type Config } from '../config/types.js';
import { DEMO_API_KEY, DEMO_EMAIL, DEMO_LABELS, DEMO_QSTASH_TOKEN } from './simulator.js';

/** The configuration of `--demo`: one QStash and one management account on the simulator at `url`,
 * the databases discovered from its listing. */
export function demoConfig(url: string, base: CommonSettings): Config {
  // Short intervals, so the demo visibly moves within a minute.
  const schedule = scheduleFromInterval('5s') as Schedule;
  const statsSchedule = scheduleFromInterval('10s') as Schedule;
  return {
    ...base,
    http: DEFAULTS.http,
    limits: DEFAULTS.limits,
    qstash: [
      {
        name: 'demo',
        url,
        token: new Secret(DEMO_QSTASH_TOKEN),
        schedule,
        // Every QStash source, the opt-in qstash_deliveries included: with the simulator's steady
        // deliveries, the demo shows each destination's error ratio (docs/metrics.md, Delivery errors
        // and workflow runs).
        sources: QSTASH_SOURCES,
        // Paging the DLQs every 30 s, not every 5 minutes: the demo should move.
        // The event sources every 10 s: the demo's delivery errors and runs move while one watches.
        ownSchedules: {
          dlq: scheduleFromInterval('30s') as Schedule,
          events: scheduleFromInterval('10s') as Schedule,
        },
        // 15 minutes, not the default hour: the onboarding workflow finishes ~130 runs an hour, and every
        // poll re-reads the lookback's runs, 10 a page, so an hour of them is more than the default
        // max_event_pages (10) reads and each poll would say seconds unread. The report workflow's
        // runs (at most 10 minutes) still fit in it. docs/metrics.md says the same for real accounts.
        workflowLookbackMs: 15 * 60_000,
        // The two labels its messages and runs carry (and one with a secret, never listed), so that
        // the demo serves the …_label_… families (docs/metrics.md, Your own labels).
        labels: DEMO_LABELS,
        exemplars: true,
      },
    ],
    management: [
      {
        name: 'demo',
        url,
        email: DEMO_EMAIL,
        apiKey: new Secret(DEMO_API_KEY),
        databases: undefined,
        include: [],
        exclude: [],
        schedule: statsSchedule,
        sources: MANAGEMENT_SOURCES,
        // Hourly by default; the demo polls them more often, as it does everything else.
        ownSchedules: {
          backups: scheduleFromInterval('30s') as Schedule,
          audit: scheduleFromInterval('30s') as Schedule,
        },
      },
    ],
    origin: 'demo (embedded simulator)',
  };
}
