import { describe, expect, it } from 'vitest';
import { KeptIdentities, PendingOutcomes, RefusedTimes } from '../../src/sources/event-identity.js';

// Which events were counted (docs/metrics.md, Event counters, rule 1), decided by identity: a log
// event (timed: its message and time) listed again in any order, on the same instant as many others,
// or at the edge of the settle window, is the event already counted; the bounds keep the newest. The
// rule is pure, so each decision is called directly.

const C = Date.UTC(2026, 10, 1);

/** Claims each `[identity, time]` in turn: which were new. */
function claims(kept: KeptIdentities, listed: readonly (readonly [string, number])[]): boolean[] {
  return listed.map(([identity, time]) => kept.claim(identity, time));
}

describe('a log event listed again is recognised, in any order', () => {
  it('listed again after an older one, out of time order', () => {
    const listed = [
      ['m1', C + 10],
      ['m2', C + 5],
      ['m1', C + 10],
      ['m3', C + 8],
      ['m3', C + 8],
    ] as const;
    expect(claims(new KeptIdentities([], true), listed)).toEqual([true, true, false, true, false]);
  });

  it('older ones after the first out of order are recognised too', () => {
    const listed = [
      ['m1', C + 10],
      ['m2', C + 5],
      ['m3', C + 8],
      ['m4', C + 3],
      ['m5', C + 1],
      ['m4', C + 3],
    ] as const;
    expect(claims(new KeptIdentities([], true), listed)).toEqual([true, true, true, true, true, false]);
  });

  it('one message at two times is two events, each recognised', () => {
    const listed = [
      ['m1', C + 10],
      ['m1', C + 5],
      ['m2', C + 8],
      ['m1', C + 5],
      ['m1', C + 10],
      ['m1', C + 6],
      ['m1', C + 6],
      ['m1', C + 5],
      ['m1', C + 10],
    ] as const;
    expect(claims(new KeptIdentities([], true), listed)).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
      false,
      false,
      false,
    ]);
  });

  it('among twenty at one instant, and two at one instant', () => {
    const kept = new KeptIdentities([], true);
    const same = Array.from({ length: 20 }, (_, k) => [`m${k}`, C] as const);
    expect(claims(kept, same).every(Boolean)).toBe(true);
    expect(claims(kept, [same[3] ?? ['', 0], same[18] ?? ['', 0], ['m20', C], ['m20', C]])).toEqual([
      false,
      false,
      true,
      false,
    ]);
    const pair = [
      ['a', C],
      ['b', C],
      ['a', C],
    ] as const;
    expect(claims(new KeptIdentities([], true), pair)).toEqual([true, true, false]);
  });

  it('a run listed again at an earlier time is kept with the greatest it was listed at', () => {
    const kept = new KeptIdentities([], false);
    expect(
      claims(kept, [
        ['r1', C + 1700],
        ['r1', C + 1000],
      ]),
    ).toEqual([true, false]);
    expect(kept.keep(C, Infinity).kept).toEqual([{ identity: 'r1', time: C + 1700 }]);
    // A kept list naming a run twice keeps its greatest time too.
    const twice = new KeptIdentities(
      [
        { identity: 'r1', time: C + 10 },
        { identity: 'r1', time: C + 50 },
      ],
      false,
    );
    expect(twice.keep(C + 20, Infinity).kept).toEqual([{ identity: 'r1', time: C + 50 }]);
  });
});

describe('the identities kept: W − settle on, bounded', () => {
  it('a message kept at three times keeps those at the cutoff or later, and knows them', () => {
    const state = [C - 10, C, C + 10].map((time) => ({ identity: 'm1', time }));
    const next = new KeptIdentities(state, true).keep(C, Infinity);
    expect(next.kept).toEqual([
      { identity: 'm1', time: C },
      { identity: 'm1', time: C + 10 },
    ]);
    expect(
      claims(new KeptIdentities(state, true), [
        ['m1', C + 10],
        ['m1', C],
        ['m1', C - 10],
      ]),
    ).toEqual([false, false, false]);
  });

  it("this poll's event exactly at the cutoff is kept", () => {
    const kept = new KeptIdentities([], true);
    kept.claim('m2', C + 5);
    kept.claim('m1', C);
    kept.claim('m0', C - 1);
    expect(kept.keep(C, Infinity)).toEqual({
      kept: [
        { identity: 'm2', time: C + 5 },
        { identity: 'm1', time: C },
      ],
      floor: C,
    });
  });

  it('as many as the bound: all kept, nothing older forgotten', () => {
    const kept = new KeptIdentities([], true);
    claims(kept, [
      ['a', C + 3],
      ['b', C + 2],
      ['c', C + 1],
    ]);
    expect(kept.keep(C, 3)).toEqual({
      kept: [
        { identity: 'a', time: C + 3 },
        { identity: 'b', time: C + 2 },
        { identity: 'c', time: C + 1 },
      ],
      floor: C,
    });
  });

  it('beyond the bound, the newest are kept (every one at the oldest instant) and the floor rises', () => {
    const kept = new KeptIdentities([{ identity: 'a', time: C + 1 }], true);
    claims(kept, [
      ['b', C + 5],
      ['c', C + 3],
      ['d', C + 3],
    ]);
    const next = kept.keep(C, 2);
    expect(next.floor).toBe(C + 3);
    expect(next.kept.map((event) => event.identity).sort()).toEqual(['b', 'c', 'd']);
    expect(kept.keep(C, 0).kept).toEqual([]);
  });
});

describe('refusals: said once while they may be listed again', () => {
  it('kept until the latest poll that read it, the cutoff itself included', () => {
    const refused = new RefusedTimes([]);
    expect(refused.first('s', 5, C)).toBe(true);
    expect(refused.first('s', 5, C + 100)).toBe(false);
    const kept = refused.keep(C + 100, Infinity);
    expect(kept).toHaveLength(1);
    expect(new RefusedTimes(kept).first('s', 5, C + 200)).toBe(false);
  });

  it('beyond the bound, those kept longest stay, and are not said again', () => {
    const refused = new RefusedTimes([]);
    for (let k = 0; k < 50; k++) refused.first(`f${k}`, C + 400_000 + k, C + 400_000 + k);
    const kept = refused.keep(C, 10);
    expect(kept).toHaveLength(10);
    const next = new RefusedTimes(kept);
    const again = Array.from({ length: 10 }, (_, k) => next.first(`f${40 + k}`, C + 400_040 + k, C));
    expect(again.filter(Boolean)).toEqual([]);
  });
});

describe('pending outcomes', () => {
  it('read again later and still in progress: pending, under its latest time, the cutoff included', () => {
    const pending = new PendingOutcomes([]);
    pending.hold('r1', C - 60_000, ['w'], ['CALLBACK_INPROGRESS']);
    expect(pending.update('r1', C, ['CALLBACK_INPROGRESS'], false)).toBeUndefined();
    expect(pending.keep(C, Infinity)).toEqual({
      pending: [{ identity: 'r1', time: C, labels: ['w'], outcome: ['CALLBACK_INPROGRESS'] }],
      leaving: [],
    });
    expect(pending.update('r1', C + 1, ['CALLBACK_FAIL'], true)).toEqual(['w', 'CALLBACK_FAIL']);
  });

  it('beyond the bound, the oldest leave under their labels and outcome as last read', () => {
    const pending = new PendingOutcomes([]);
    for (let k = 1; k <= 3; k++) pending.hold(`r${k}`, C + k, [`w${k}`], ['CALLBACK_INPROGRESS']);
    const next = pending.keep(C, 2);
    expect(next.pending.map((event) => event.identity).sort()).toEqual(['r2', 'r3']);
    expect(next.leaving).toEqual([['w1', 'CALLBACK_INPROGRESS']]);
  });
});
