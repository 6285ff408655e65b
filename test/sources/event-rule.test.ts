import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { gauge } from '../../src/metrics/catalogue.js';
import { advance, EventCounters, OTHER, startAt } from '../../src/sources/event-rule.js';

const e = (time: number, id: string) => ({ time, id });

describe('advance: contract 10.1', () => {
  test('history before W is not counted; W moves to the greatest time read', () => {
    const { fresh, next } = advance(startAt(100), [e(102, 'c'), e(100, 'b'), e(99, 'a')]);
    expect(fresh.map((x) => x.id)).toEqual(['c', 'b']);
    expect(next).toEqual({ at: 102, countedAt: new Set(['c']) });
  });

  test('events at exactly W counted by the previous read are recognised; new ones at W are counted', () => {
    const first = advance(startAt(100), [e(101, 'a')]);
    const second = advance(first.next, [e(101, 'b'), e(101, 'a'), e(90, 'old')]);
    expect(second.fresh.map((x) => x.id)).toEqual(['b']);
    expect(second.next).toEqual({ at: 101, countedAt: new Set(['a', 'b']) });
  });

  test('a read with nothing new leaves W; an identity repeated in one read counts once', () => {
    const w = { at: 100, countedAt: new Set(['x']) };
    expect(advance(w, [e(50, 'z')]).next).toEqual(w);
    expect(advance(startAt(0), [e(5, 'a'), e(5, 'a')]).fresh).toHaveLength(1);
  });

  test('property: reading overlapping windows of one log counts each event ≥ W0 exactly once', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({ time: fc.integer({ min: 0, max: 20 }), id: fc.string({ minLength: 1 }) }),
          {
            selector: (x) => x.id,
          },
        ),
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 6 }),
        (log, cuts) => {
          // Each read sees the events known by then (time ≤ cut), as a log that grows.
          let w = startAt(3);
          const counted: string[] = [];
          for (const cut of [...cuts.sort((a, b) => a - b), 20]) {
            const { fresh, next } = advance(
              w,
              log.filter((x) => x.time <= cut),
            );
            counted.push(...fresh.map((x) => x.id));
            w = next;
          }
          expect(counted.sort()).toEqual(
            log
              .filter((x) => x.time >= 3)
              .map((x) => x.id)
              .sort(),
          );
        },
      ),
    );
  });
});

describe('EventCounters', () => {
  const metric = { ...gauge('t_total', 'help'), type: 'counter' as const };

  test('counts by label set, at most maxSeries sets; the rest under other, said as overflow', () => {
    const counters = new EventCounters(metric, ['action', 'via']);
    expect(counters.count(['Delete', 'API_KEY'], 2)).toBe(false);
    expect(counters.count(['Delete', 'API_KEY'], 2)).toBe(false);
    expect(counters.count(['Create', 'CONSOLE'], 2)).toBe(false);
    expect(counters.count(['Reset', 'CONSOLE'], 2)).toBe(true);
    expect(counters.count(['Rotate', 'CONSOLE'], 2)).toBe(true);
    // A set already there still counts as itself.
    expect(counters.count(['Create', 'CONSOLE'], 2)).toBe(false);
    const samples = counters.samples([['account', 'a']]);
    expect(samples.map((s) => [s.labels.map(([, v]) => v).join(','), s.value])).toEqual([
      ['a,Delete,API_KEY', 2],
      ['a,Create,CONSOLE', 2],
      [`a,${OTHER},${OTHER}`, 2],
    ]);
  });
});
