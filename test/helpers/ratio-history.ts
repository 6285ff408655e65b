import fc from 'fast-check';
import { expect } from 'vitest';
import { qstashDeliveries } from '../../src/sources/qstash-deliveries.js';
import { qstashLogs } from '../../src/sources/qstash-logs.js';
import { EventAccount, labelOf, type SeriesKey } from './event-account.js';
import { EventModel, type Check } from './event-model.js';

// Histories of a ratio's two families (docs/metrics.md, Delivery errors and workflow runs): ERROR
// events counted by `qstash_logs` and DELIVERED ones by `qstash_deliveries`, by destination, more
// destinations than `max_event_series` allows; the two sources polled in any order, reloads that
// change the cap, worker deaths. At the end a destination is under its own name in both families,
// with all its events, or in neither.

/** One step of a ratio history. */
export type RatioStep =
  | {
      readonly kind: 'arrive';
      readonly state: 'ERROR' | 'DELIVERED';
      readonly destination: number;
      readonly code: number;
      readonly count: number;
    }
  | { readonly kind: 'advance'; readonly ms: number }
  | { readonly kind: 'poll'; readonly source: 'logs' | 'deliveries'; readonly publish: boolean }
  | { readonly kind: 'die' }
  | { readonly kind: 'reload'; readonly series: number };

/** A step of a ratio history. */
export const ratioStep: fc.Arbitrary<RatioStep> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('arrive' as const),
      state: fc.constantFrom('ERROR' as const, 'DELIVERED' as const),
      destination: fc.integer({ min: 0, max: 4 }),
      code: fc.integer({ min: 0, max: 2 }),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 30_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('poll' as const),
      source: fc.constantFrom('logs' as const, 'deliveries' as const),
      publish: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('die' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('reload' as const), series: fc.integer({ min: 1, max: 3 }) }),
  },
);

const ERRORS = 'upstash_qstash_delivery_errors_total';
const DELIVERIES = 'upstash_qstash_deliveries_total';

/** Per destination named in `family`, its events counted. */
function named(series: ReadonlyMap<SeriesKey, number>, family: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of series) {
    const destination = labelOf(key, 'destination');
    if (!key.startsWith(`${family}{`) || destination === undefined || destination === 'other') continue;
    out.set(destination, (out.get(destination) ?? 0) + value);
  }
  return out;
}

/** Plays `steps` with the cap at `series` at first, then reads everything and checks the end. */
export async function playRatio(
  steps: readonly RatioStep[],
  series: number,
  skip: readonly Check[] = [],
): Promise<void> {
  const account = new EventAccount([qstashLogs, qstashDeliveries], {
    maxEventSeries: series,
    maxEventPages: 10,
  });
  const model = new EventModel(account, { counts: () => new Map(), timeFields: ['time'], skip });
  const { upstream } = account;
  upstream.pageSize = 100;
  const arrived = new Map<string, number>();
  let serial = 0;
  let widest = series;
  const poll = async (source: 'logs' | 'deliveries', publish: boolean): Promise<void> => {
    const polled = await account.poll(source === 'logs' ? qstashLogs : qstashDeliveries);
    model.afterPoll(polled, account.clock, publish);
    const names = new Set([...named(model.latest, ERRORS).keys(), ...named(model.latest, DELIVERIES).keys()]);
    if (!skip.includes('I4-cap'))
      expect(names.size, `I4: more destinations named than max_event_series (${widest})`).toBeLessThanOrEqual(
        widest,
      );
  };
  try {
    for (const s of steps) {
      if (s.kind === 'arrive')
        for (let i = 0; i < s.count; i++) {
          const id = `m${serial++}`;
          const destination = `https://d${s.destination}.test`;
          const body = {
            time: account.clock,
            messageId: id,
            state: s.state,
            url: `${destination}/hook`,
            ...(s.state === 'ERROR' && { responseStatus: [500, 502, 404][s.code] }),
          };
          upstream.add({ id, state: s.state, at: account.clock, body });
          const key = `${s.state} ${destination}`;
          arrived.set(key, (arrived.get(key) ?? 0) + 1);
        }
      else if (s.kind === 'advance') account.advance(s.ms);
      else if (s.kind === 'die') model.die();
      else if (s.kind === 'reload') {
        widest = Math.max(widest, s.series);
        account.reload({ maxEventSeries: s.series });
      } else await poll(s.source, s.publish);
    }
    account.advance(60_000);
    await poll('logs', true);
    await poll('deliveries', true);
    const errors = named(model.latest, ERRORS);
    const deliveries = named(model.latest, DELIVERIES);
    for (let d = 0; d <= 4; d++) {
      const destination = `https://d${d}.test`;
      const failed = arrived.get(`ERROR ${destination}`) ?? 0;
      const delivered = arrived.get(`DELIVERED ${destination}`) ?? 0;
      if (failed === 0 || delivered === 0) continue;
      expect(
        errors.has(destination),
        `I4: ${destination} named in the errors ${errors.has(destination) ? 'but' : 'and'} folded in the deliveries`,
      ).toBe(deliveries.has(destination));
      if (!errors.has(destination)) continue;
      expect(errors.get(destination), `I4: ${destination}'s errors all under its name`).toBe(failed);
      expect(deliveries.get(destination), `I4: ${destination}'s deliveries all under its name`).toBe(
        delivered,
      );
    }
  } finally {
    await account.close();
  }
}
