import { DEFAULTS } from '../../src/config/types.js';
import {
  DEMO_API_KEY,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../src/demo/simulator.js';
import { SOURCES } from '../../src/source-registry.js';
import type { EventEntry } from '../../src/sources/event-store.js';
import type { SourceKind, SourceResult } from '../../src/sources/source.js';
import { UpstashClient } from '../../src/upstash/client.js';
import type { Limits } from '../../src/vocabulary.js';

// One source polled over real HTTP from the simulator, as the poller polls it (the tests of the event
// sources, test/sources/): account `eu` with its API's demo credential, the default limits but
// `changed`, and the entry's event state given by the test.

/** Polls `source` once with `events`, the limits `changed` from the defaults. */
export type Poll = (
  source: SourceKind,
  events: EventEntry,
  changed?: Partial<Limits>,
) => Promise<SourceResult>;

/** A simulator, how to poll a source from it, and how to stop both. */
export interface SimulatedSources {
  readonly sim: Simulator;
  readonly poll: Poll;
  close(): Promise<void>;
}

/** Starts a simulator with `options` and a client towards it (no retries). */
export async function simulatedSources(options: SimulatorOptions = {}): Promise<SimulatedSources> {
  const sim = await startSimulator(options);
  const client = new UpstashClient({
    timeoutMs: 5000,
    retries: 0,
    concurrency: 1,
    userAgent: 'test',
    random: () => 0,
  });
  const poll: Poll = async (source, events, changed = {}) =>
    source.poll({
      client,
      account: {
        name: 'eu',
        baseUrl: sim.url,
        credentials:
          SOURCES[source.name].api === 'qstash'
            ? { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } }
            : { api: 'management', email: DEMO_EMAIL, apiKey: { reveal: () => DEMO_API_KEY } },
        workflowLookbackMs: DEFAULTS.workflowLookback.defaultMs,
      },
      unit: '',
      limits: { ...DEFAULTS.limits, ...changed },
      signal: new AbortController().signal,
      deadline: Date.now() + 60_000,
      events,
    });
  return {
    sim,
    poll,
    close: async () => {
      await client.close();
      await sim.stop();
    },
  };
}
