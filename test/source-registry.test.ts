import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULTS } from '../src/config/types.js';
import { ROUTES } from '../src/demo/routes.js';
import {
  DEMO_API_KEY,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
} from '../src/demo/simulator.js';
import { EventStore } from '../src/sources/event-store.js';
import { sourceKind } from '../src/sources/kinds.js';
import { entryGroups, type SourceEntry, type UnitDeps } from '../src/sources/units.js';
import { UpstashClient } from '../src/upstash/client.js';
import { SOURCES } from '../src/source-registry.js';
import {
  listingOf,
  onOwnSchedule,
  ownScheduleOf,
  ownSchedules,
  SOURCE_NAMES,
  type PollUnit,
} from '../src/vocabulary.js';

let sim: Simulator | undefined;
let client: UpstashClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.stop();
  sim = undefined;
  client = undefined;
});

describe('the table of sources', () => {
  test('the poll worker polls every source of each API, and the simulator answers each one', async () => {
    sim = await startSimulator();
    client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 4, userAgent: 'test' });
    const discovered: PollUnit[] = [];
    const deps: UnitDeps = {
      client,
      limits: DEFAULTS.limits,
      shard: { shard: 0, total: 1 },
      known: new Map(),
      events: new EventStore(),
      onDiscovered: (_key, _family, units) => discovered.push(...units),
      onUnpollable: () => undefined,
    };
    // Each API's entry enables its sources as the config lists them by default: a source under the
    // wrong API would be asked with the other API's credential, which the simulator refuses.
    const entries: SourceEntry[] = [
      {
        key: 'qstash/eu',
        account: {
          name: 'eu',
          baseUrl: sim.url,
          credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } },
          workflowLookbackMs: DEFAULTS.workflowLookback.defaultMs,
        },
        sources: SOURCE_NAMES.qstash,
      },
      {
        key: 'management/main',
        account: {
          name: 'main',
          baseUrl: sim.url,
          credentials: { api: 'management', email: DEMO_EMAIL, apiKey: { reveal: () => DEMO_API_KEY } },
        },
        sources: SOURCE_NAMES.management,
      },
    ];
    // The documented path of each event log answers 404 once, so that the entry reads the SDK's from
    // then on (docs/metrics.md, "Delivery errors and workflow runs"): both are the simulator's.
    sim.setFault('qstash_logs', { kind: 'status', status: 404, times: 1 });
    sim.setFault('workflow_logs', { kind: 'status', status: 404, times: 1 });
    const polled = new Set<string>();
    const pollEach = async (units: readonly PollUnit[]): Promise<void> => {
      for (const unit of units) {
        const result = await unit.poll({
          signal: new AbortController().signal,
          deadline: Date.now() + 60_000,
        });
        result.onRecorded?.();
        polled.add(unit.labels.source);
      }
    };
    await pollEach(entries.flatMap((entry) => entryGroups(entry, deps).flatMap((group) => group.units)));
    // The per-ID sources, once the listings have said which IDs there are.
    await pollEach(discovered.splice(0));

    expect([...polled].sort()).toEqual([
      'audit_logs',
      'databases',
      'dlq',
      'flow_control',
      'global_parallelism',
      'qstash_deliveries',
      'qstash_egress_ips',
      'qstash_logs',
      'qstash_stats',
      'qstash_users',
      'queues',
      'redis_backups',
      'redis_stats',
      'schedules',
      'search_indexes',
      'search_stats',
      'teams',
      'url_groups',
      'vector_indexes',
      'vector_stats',
      'workflow_dlq',
      'workflow_runs',
    ]);
    // Every route the simulator serves was read by a source (a team's members, the SDK's event paths).
    expect(ROUTES.filter((route) => sim!.requests(route) === 0)).toEqual([]);
  });

  test('gives each API its own schedules and the sources on each', () => {
    expect(ownSchedules('qstash')).toEqual(['dlq', 'events']);
    expect(ownSchedules('management')).toEqual(['backups', 'audit']);
    expect(onOwnSchedule('qstash', 'dlq')).toEqual(['dlq', 'workflow_dlq']);
    expect(onOwnSchedule('qstash', 'events')).toEqual(['qstash_logs', 'qstash_deliveries', 'workflow_runs']);
    expect(onOwnSchedule('management', 'backups')).toEqual(['redis_backups']);
    expect(onOwnSchedule('management', 'audit')).toEqual(['audit_logs', 'teams', 'qstash_egress_ips']);
    expect(ownScheduleOf('teams')).toBe('audit');
    expect(ownScheduleOf('redis_stats')).toBeUndefined();
  });

  test("names for each source polled per ID a listing of its API that discovers the row's unit kind", () => {
    const listed = [...SOURCE_NAMES.qstash, ...SOURCE_NAMES.management].flatMap((name) => {
      const listing = listingOf(name);
      return listing === undefined ? [] : [[name, listing.listedBy, listing.per]];
    });
    expect(listed).toEqual([
      ['redis_stats', 'databases', 'database'],
      ['redis_backups', 'databases', 'database'],
      ['qstash_stats', 'qstash_users', 'qstash_instance'],
      ['vector_stats', 'vector_indexes', 'vector_index'],
      ['search_stats', 'search_indexes', 'search_index'],
    ]);
    // The kind polls per the row's unit, and the listing's kind discovers it: the poll worker's units
    // wait for what the row names (docs/architecture.md, "Adding a source / an event source / a route / a limit / a flag").
    for (const [name, listedBy, per] of listed as [keyof typeof SOURCES, keyof typeof SOURCES, string][]) {
      expect(sourceKind(name).per, name).toBe(per);
      expect(sourceKind(listedBy).lists, listedBy).toBe(per);
      expect(sourceKind(listedBy).per, listedBy).toBe('account');
      expect(SOURCES[listedBy].api, listedBy).toBe(SOURCES[name].api);
    }
  });
});
