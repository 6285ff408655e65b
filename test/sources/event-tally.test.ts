import { describe, expect, it } from 'vitest';
import {
  cumulativeBuckets,
  OTHER,
  type EventSeries,
  type SeriesExemplar,
} from '../../src/sources/event-state.js';
import { KeyBudget, Tally } from '../../src/sources/event-tally.js';

// The counts per label set and the one cap on them (docs/metrics.md, Event counters, rule 5): which
// label sets a state already holds count against `max_event_series` (a fold never does), a set
// counted before stays under its name, the budget of keys, the histogram's buckets and the series'
// exemplar (docs/metrics.md, Exemplars). The tally is pure, so it is called directly.

const series = (...labels: string[]): EventSeries => ({ labels, count: 1, sum: 0, buckets: [] });

/** Counts one event under each label set: the labels each was counted under. */
function counted(tally: Tally, ...sets: string[][]): (readonly string[])[] {
  return sets.map((labels) => tally.count(labels));
}

describe('which label sets count against the cap', () => {
  it('the all-other fold a state holds leaves its place to a new set', () => {
    const tally = new Tally([series('a', 'x'), series('b', 'y'), series(OTHER, OTHER)], { maxSeries: 3 });
    expect(counted(tally, ['c', 'z'], ['d', 'w'])).toEqual([
      ['c', 'z'],
      [OTHER, OTHER],
    ]);
    const one = new Tally([series('a'), series(OTHER)], { maxSeries: 2 });
    expect(counted(one, ['b'], ['c'])).toEqual([['b'], [OTHER]]);
  });

  it("a kept key's fold is no set against the cap; without a key, a set reading other is one", () => {
    const keys = new KeyBudget(10, []);
    const keyed = new Tally([series('a', '500'), series('a', OTHER)], { maxSeries: 2, keys });
    expect(counted(keyed, ['a', '502'], ['b', '503'])).toEqual([
      ['a', '502'],
      ['b', OTHER],
    ]);
    const plain = new Tally([series('x', OTHER)], { maxSeries: 1 });
    expect(counted(plain, ['y', 'z'])).toEqual([[OTHER, OTHER]]);
  });

  it('events handed in under a fold are counted there, not as a new set', () => {
    const keyed = new Tally([], { maxSeries: 1, keys: new KeyBudget(10, []) });
    expect(counted(keyed, ['a', OTHER], ['b', '500'])).toEqual([
      ['a', OTHER],
      ['b', '500'],
    ]);
    const plain = new Tally([], { maxSeries: 1 });
    expect(counted(plain, ['x', OTHER], ['y', 'z'])).toEqual([
      ['x', OTHER],
      [OTHER, OTHER],
    ]);
  });

  it('a set counted before stays under its name at a full cap', () => {
    const tally = new Tally([series('a', 'x')], { maxSeries: 1 });
    expect(counted(tally, ['a', 'x'], ['b', 'y'])).toEqual([
      ['a', 'x'],
      [OTHER, OTHER],
    ]);
    expect(tally.series().map((s) => [s.labels, s.count])).toEqual([
      [['a', 'x'], 2],
      [[OTHER, OTHER], 1],
    ]);
  });

  it('two label sets whose values run together are two series', () => {
    const tally = new Tally([], { maxSeries: 10 });
    counted(tally, ['ab', 'c'], ['a', 'bc']);
    expect(tally.series().map((s) => s.labels)).toEqual([
      ['ab', 'c'],
      ['a', 'bc'],
    ]);
  });
});

describe('the budget of keys', () => {
  it('the fold a family holds takes no key of the budget', () => {
    const keys = new KeyBudget(1, [[series(OTHER, OTHER)]]);
    const tally = new Tally([series(OTHER, OTHER)], { maxSeries: 10, keys });
    expect(counted(tally, ['a', '500'])).toEqual([['a', '500']]);
  });

  it('beyond the keys it remembers, a fold is said again rather than kept', () => {
    const said = new Set(Array.from({ length: 10_000 }, (_, k) => `k${k}`));
    const keys = new KeyBudget(0, [], { admitted: new Set(), said });
    expect([keys.sayFold('new'), keys.sayFold('new'), keys.sayFold('k1')]).toEqual([true, true, false]);
    expect(said.size).toBe(10_000);
  });

  it('a key refused stays refused when a reload raises the cap; past the refusals remembered, every new one', () => {
    const kept = { admitted: new Set<string>(), said: new Set<string>() };
    const full = new KeyBudget(1, [], kept);
    expect([full.admit('a'), full.admit('b'), full.sayFold('b')]).toEqual([true, false, true]);
    const raised = new KeyBudget(3, [], kept);
    expect([raised.admit('b'), raised.admit('c'), raised.admit('a')]).toEqual([false, true, true]);
    const forgetful = {
      admitted: new Set<string>(),
      said: new Set(Array.from({ length: 10_000 }, (_, k) => `k${k}`)),
    };
    expect(new KeyBudget(20_000, [], forgetful).admit('never-seen')).toBe(false);
  });
});

describe('histogram and exemplar', () => {
  it('a value on a bound is in that bucket; the cumulative counts end with the count', () => {
    const tally = new Tally([], { maxSeries: 10, buckets: [1, 5] });
    for (const value of [1, 5, 7]) tally.count(['w'], value);
    const [s] = tally.series();
    expect(s && [s.buckets, s.sum, cumulativeBuckets(s)]).toEqual([[1, 1], 13, [1, 2, 3]]);
  });

  it("the series' exemplar is the newest event counted, the last counted on a tie, across polls", () => {
    const ex = (id: string, time: number): SeriesExemplar => ({ id, time, value: 1 });
    const first = new Tally([], { maxSeries: 10 });
    first.count(['w'], undefined, ex('newest', 50));
    first.count(['w'], undefined, ex('older', 30));
    expect(first.series()[0]?.exemplar).toEqual(ex('newest', 50));
    first.count(['w'], undefined, ex('tie', 50));
    const kept = first.series();
    expect(kept[0]?.exemplar?.id).toBe('tie');
    const next = new Tally(kept, { maxSeries: 10 });
    next.count(['w'], undefined, ex('later', 60));
    expect(next.series()[0]?.exemplar?.id).toBe('later');
    const none = new Tally(next.series(), { maxSeries: 10 });
    none.count(['w'], undefined, ex('old', 10));
    expect(none.series()[0]?.exemplar?.id).toBe('later');
  });
});
