/** A QStash instance the simulated management API lists, with the plan figures the demo uses. */
export interface DemoQstashInstance {
  readonly id: string;
  readonly region: 'eu-central-1' | 'us-east-1';
  readonly type: 'free' | 'paid';
  readonly maxRequestsPerDay: number;
  readonly maxDlqSize: number;
  /** Messages added to the dead-letter queue per minute; default 3 on a paid instance, 0 on a free one. */
  readonly dlqPerMinute?: number;
}

/** The instances listed by default: a busy paid one in Europe, a free one near its daily limit in the US. */
export const DEMO_QSTASH_INSTANCES: readonly DemoQstashInstance[] = [
  {
    id: '7f3e2a10-5b1c-4d8e-9a61-2c4b8f0d1e01',
    region: 'eu-central-1',
    type: 'paid',
    maxRequestsPerDay: 500_000,
    maxDlqSize: 1000,
  },
  {
    id: '0c9d8e7f-1a2b-4c3d-8e4f-5a6b7c8d9e02',
    region: 'us-east-1',
    type: 'free',
    maxRequestsPerDay: 1000,
    maxDlqSize: 100,
  },
];

/** Options of the simulated management QStash endpoints (the instance listing and each one's stats). */
export interface QstashUsersOptions {
  /** The instances the account has; default {@link DEMO_QSTASH_INSTANCES}. */
  qstashInstances?: readonly DemoQstashInstance[];
}
