import { setTimeout as sleep } from 'node:timers/promises';
import { ROUTES, startSimulator } from '../src/demo/simulator.js';
import { DEMO_API_KEY, DEMO_EMAIL, DEMO_QSTASH_TOKEN } from '../src/demo/simulator.js';
import { UpstashClient } from '../src/upstash/client.js';
import { fetchFlowControl } from '../src/upstash/flow-control.js';
import { fetchRedisStats } from '../src/upstash/redis-stats.js';
import { fetchUrlGroups } from '../src/upstash/url-groups.js';
import { startExporter } from './exporter-process.js';
import { simulatorOptions, sourceCount, type State } from './states.js';

/** What polling costs Upstash. */
export interface CostFigures {
  readonly sources: number;
  /** The exporter process, polling every second; `cycles` is polls per source. */
  readonly exporter: {
    cycles: number;
    polls: number;
    skipped: number;
    requests: number;
    connectionsOpened: number;
    poolSize: number;
  };
  /** The same client and fetch functions in-process, driven through many cycles back to back. */
  readonly client: { cycles: number; requests: number; connectionsOpened: number; poolSize: number };
}

const POOL_SIZE = 4; // http.concurrency's default, which is also the keep-alive pool per origin

/** Counts Upstash requests per poll cycle and the TCP connections they needed. */
export async function measureUpstashCost(
  state: State,
  options: { exporterSeconds: number; clientCycles: number },
): Promise<CostFigures> {
  return {
    sources: sourceCount(state),
    exporter: await exporterCycles(state, options.exporterSeconds),
    client: await clientCycles(state, options.clientCycles),
  };
}

async function exporterCycles(state: State, seconds: number): Promise<CostFigures['exporter']> {
  const simulator = await startSimulator(simulatorOptions(state));
  const exporter = await startExporter({ simulatorUrl: simulator.url, state, interval: '1s' });
  try {
    await sleep(seconds * 1000);
    // Per-database polls are spread over the interval, so some poll may be in flight at any moment:
    // read when none is (polls take a few ms), i.e. when two reads of the counters agree around the
    // simulator's count; a poll started but not yet arrived would otherwise count half. On a busy
    // machine such a moment can take a while to come (a poll a second, each slow): up to 30 s.
    let metrics = '';
    let requests = 0;
    for (const until = Date.now() + 30_000; Date.now() < until;) {
      const before = sumOf((await exporter.scrape()).toString('utf8'), 'upstash_exporter_polls_total');
      requests = ROUTES.reduce((n, route) => n + simulator.requests(route), 0);
      metrics = (await exporter.scrape()).toString('utf8');
      if (before === sumOf(metrics, 'upstash_exporter_polls_total') && before === requests) break;
      await sleep(37);
    }
    const polls = sumOf(metrics, 'upstash_exporter_polls_total');
    const skipped = sumOf(metrics, 'upstash_exporter_polls_skipped_total');
    const cycles = polls / sourceCount(state);
    return {
      cycles,
      polls,
      skipped,
      requests,
      connectionsOpened: simulator.connectionsOpened,
      poolSize: POOL_SIZE,
    };
  } finally {
    await exporter.stop();
    await simulator.stop();
  }
}

async function clientCycles(state: State, cycles: number): Promise<CostFigures['client']> {
  const simulator = await startSimulator(simulatorOptions(state));
  const client = new UpstashClient({
    timeoutMs: 10_000,
    retries: 2,
    concurrency: POOL_SIZE,
    userAgent: 'upstash-exporter-bench',
  });
  const qstash = {
    baseUrl: simulator.url,
    credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } },
  } as const;
  const management = {
    baseUrl: simulator.url,
    credentials: { api: 'management', email: DEMO_EMAIL, apiKey: { reveal: () => DEMO_API_KEY } },
  } as const;
  try {
    for (let cycle = 0; cycle < cycles; cycle++) {
      await Promise.all([
        fetchFlowControl(client, qstash),
        fetchUrlGroups(client, qstash),
        ...state.databases.map((databaseId) => fetchRedisStats(client, { ...management, databaseId })),
      ]);
    }
    const requests = ROUTES.reduce((n, route) => n + simulator.requests(route), 0);
    return { cycles, requests, connectionsOpened: simulator.connectionsOpened, poolSize: POOL_SIZE };
  } finally {
    await client.close();
    await simulator.stop();
  }
}

/** The sum of every sample of a metric in an exposition. */
function sumOf(exposition: string, name: string): number {
  let total = 0;
  for (const match of exposition.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    total += Number(match[1]);
  }
  return total;
}
