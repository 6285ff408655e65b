import { describe, expect, it } from 'vitest';
import {
  EARLIEST_SECONDS,
  EventScan,
  KeyBudget,
  startState,
  type CountedEvent,
  type EventRuleOptions,
  type EventState,
  type ScanResult,
} from '../../src/sources/event-rule.js';

// The event rule's invariants (docs/metrics.md, Event counters), each against the upstream answer
// that broke it: a time in seconds inside a page, an event a few minutes ahead, capped polls with W
// stuck, two families sharing a cap, a run re-stamped later, a failure function still in progress.
// The clock is the rule's `now`; pages are what the pager hands over.

const T = Date.UTC(2026, 10, 1);
const LOG: EventRuleOptions = {
  perSecond: 1000,
  maxSeries: 100,
  ordered: true,
  settle: 30_000,
  timedIdentity: true,
};
const RUNS: EventRuleOptions = { perSecond: 1000, maxSeries: 100, ordered: false, settle: 30_000 };

/** One poll: `pages` in order, the last without a cursor unless `capped`. */
function poll(
  state: EventState,
  options: EventRuleOptions,
  pages: readonly (readonly CountedEvent[])[],
  capped = false,
): ScanResult {
  const scan = new EventScan(state, options);
  let read = 0;
  for (const page of pages) {
    read++;
    if (!scan.read(page)) break;
  }
  return scan.finish(!capped && read === pages.length);
}

const total = (state: EventState) => state.series.reduce((sum, s) => sum + s.count, 0);
const event = (time: number, identity: string, labels: readonly string[] = ['d']): CountedEvent => ({
  time,
  identity,
  labels,
});
/** `events` in pages of `size`. */
const paged = (events: readonly CountedEvent[], size = 100) =>
  Array.from({ length: Math.ceil(events.length / size) }, (_, at) =>
    events.slice(at * size, at * size + size),
  );

describe('no event ends a scan', () => {
  it('a time in seconds among 300 newest-first events is refused, and the scan goes on past it', () => {
    const events = Array.from({ length: 300 }, (_, k) => event(T + 1500 - 5 * k, `m${k}`));
    events[49] = event(Math.floor((T + 1500 - 5 * 49) / 1000), 'm49');
    const result = poll(startState(T), { ...LOG, now: T + 2000 }, paged(events));
    expect(result.counted).toBe(299);
    expect(result.implausible).toBe(1);
    expect(result.state.complete).toBe(true);
    expect(result.state.watermark).toBe(T + 1500);
  });

  it('zero, negative, not a number and before 2015 are refused; none stops or moves anything', () => {
    const bad = [0, -5, Number.NaN, Date.UTC(2014, 11, 31), 'soon' as unknown as number];
    const events = [event(T + 30, 'a'), ...bad.map((time, k) => event(time, `bad${k}`)), event(T + 10, 'b')];
    const result = poll(startState(T), { ...LOG, now: T + 1000 }, [events]);
    expect(result.counted).toBe(2);
    expect(result.implausible).toBe(bad.length);
    expect(result.state.watermark).toBe(T + 30);
    expect(result.state.since).toBe(T);
  });

  it('an event before the window in a page does not end the scan; a page all before it does', () => {
    const state = { ...startState(T), watermark: T + 100_000 };
    const now = T + 200_000;
    const mixed = [event(T + 150_000, 'a'), event(T + 1000, 'old'), event(T + 140_000, 'b')];
    const next = [event(T + 130_000, 'c'), event(T + 500, 'older')];
    const result = poll(state, { ...LOG, now }, [
      mixed,
      next,
      [event(T + 10, 'x')],
      [event(T + 120_000, 'd')],
    ]);
    expect(result.counted).toBe(3);
    expect(result.state.complete).toBe(true);
  });
});

describe('a refused time is said once', () => {
  it('an event in seconds listed again by the next polls is refused, and said, once', () => {
    const page = [event(T + 20, 'a'), event(Math.floor((T + 10) / 1000), 's'), event(T + 5, 'b')];
    const said: number[] = [];
    let state = startState(T);
    for (let n = 1; n <= 5; n++) {
      const result = poll(state, { ...LOG, now: T + n * 1000 }, [page]);
      said.push(result.implausible);
      state = result.state;
    }
    expect(said).toEqual([1, 0, 0, 0, 0]);
    expect(total(state)).toBe(2);
    // Kept while it can be listed again: until the window passes the poll that read it.
    expect(state.refused).toHaveLength(1);
    const later = poll(state, { ...LOG, now: T + 40_000 }, [[event(T + 39_000, 'c')]]);
    expect(later.state.refused).toEqual([]);
  });

  it('one dated ahead is refused once, and counted once the clock brings it within the horizon', () => {
    const ahead = event(T + 400_000, 'x');
    const first = poll(startState(T), { ...LOG, now: T }, [[ahead]]);
    const again = poll(first.state, { ...LOG, now: T + 50_000 }, [[ahead]]);
    expect([first.future, again.future, again.counted]).toEqual([1, 0, 0]);
    const within = poll(again.state, { ...LOG, now: T + 150_000 }, [[ahead]]);
    expect([within.future, within.counted]).toEqual([0, 1]);
    const after = poll(within.state, { ...LOG, now: T + 160_000 }, [[ahead]]);
    expect([after.future, after.counted, total(after.state)]).toEqual([0, 0, 1]);
  });

  it('refusals kept are bounded as the identities are', () => {
    const page = Array.from({ length: 50 }, (_, k) => event(T + 400_000 + k, `f${k}`));
    const result = poll(startState(T), { ...LOG, now: T, maxKept: 10 }, [page]);
    expect(result.future).toBe(50);
    expect(result.state.refused).toHaveLength(10);
  });
});

describe('W never runs ahead of the exporter clock', () => {
  it('an event 4 minutes ahead is counted once, W moves to the poll start, the next minutes count', () => {
    let state = startState(T);
    const ahead = event(T + 240_000, 'ahead');
    const first = poll(state, { ...LOG, now: T + 1000 }, [[ahead]]);
    expect(first.counted).toBe(1);
    expect(first.state.watermark).toBe(T + 1000);
    state = first.state;
    const later: CountedEvent[] = [];
    for (let n = 0; n < 19; n++) {
      const now = T + 2000 + n * 10_000;
      later.unshift(event(now - 500, `m${n}`));
      const result = poll(state, { ...LOG, now }, [[ahead, ...later]]);
      expect(result.counted).toBe(1);
      expect(result.state.watermark).toBeLessThanOrEqual(now);
      state = result.state;
    }
    expect(total(state)).toBe(20);
    // Once the clock has passed it, W is the event's time: the greatest counted.
    const past = poll(state, { ...LOG, now: T + 300_000 }, [[ahead, ...later]]);
    expect(past.counted).toBe(0);
    expect(past.state.watermark).toBe(T + 240_000);
  });

  it('more than five minutes ahead is refused as dated ahead, not as implausible', () => {
    const result = poll(startState(T), { ...LOG, now: T }, [[event(T + 301_000, 'x'), event(T - 1, 'y')]]);
    expect([result.future, result.implausible, result.counted]).toEqual([1, 0, 0]);
    expect(result.state.watermark).toBe(T);
  });

  it('exactly five minutes ahead, and exactly 2015-01-01, are times', () => {
    expect(poll(startState(T), { ...LOG, now: T }, [[event(T + 300_000, 'x')]]).counted).toBe(1);
    const audit: EventRuleOptions = { perSecond: 1, maxSeries: 10, ordered: false, now: T / 1000 };
    const first = poll(startState(EARLIEST_SECONDS), audit, [[event(EARLIEST_SECONDS, 'log_1')]]);
    expect([first.counted, first.implausible]).toEqual([1, 0]);
  });

  it('one refused as ahead is kept until the window passes its own time, not the poll start', () => {
    const ahead = event(T + 400_000, 'x');
    const first = poll(startState(T), { ...LOG, now: T }, [[ahead]]);
    const moved = poll(first.state, { ...LOG, now: T + 90_000 }, [[event(T + 85_000, 'a')]]);
    const again = poll(moved.state, { ...LOG, now: T + 95_000 }, [[ahead]]);
    expect([first.future, again.future, again.counted]).toEqual([1, 0, 0]);
  });
});

describe('unread is said once, never more than elapsed', () => {
  it('eleven capped polls of runs with W stuck say at most the time elapsed', () => {
    let state = startState(T);
    let said = 0;
    for (let n = 1; n <= 11; n++) {
      const result = poll(state, { ...RUNS, now: T + n * 2000 }, [[event(T - 1, `old${n}`)]], true);
      said += result.unreadSeconds;
      state = result.state;
    }
    expect(state.watermark).toBe(T);
    expect(state.unreadSeconds).toBe(said);
    expect(said).toBe(22);
  });

  it('capped log polls whose pages hold only refused future events say the span once', () => {
    let state = startState(T);
    const future = Array.from({ length: 100 }, (_, k) => event(T + 10_000_000 + k, `f${k}`));
    for (let n = 1; n <= 5; n++) state = poll(state, { ...LOG, now: T + n * 4000 }, [future], true).state;
    expect(state.unreadSeconds).toBe(20);
    expect(state.complete).toBe(false);
  });

  it('a capped log poll says unread up to the oldest time it read, never past the clock', () => {
    const page = [event(T + 50_000, 'a'), event(T + 10_000, 'b'), event(T + 30_000, 'c')];
    expect(poll(startState(T), { ...LOG, now: T + 100_000 }, [page], true).unreadSeconds).toBe(10);
    const ahead = [event(T + 200_000, 'a'), event(T + 100_000, 'b')];
    expect(poll(startState(T), { ...LOG, now: T + 10_000 }, [ahead], true).unreadSeconds).toBe(10);
  });
});

describe('one cap, one series', () => {
  it('a destination is under its name in both families of the ratio, or other in both', () => {
    const errors0 = startState(T);
    const deliveries0 = startState(T);
    const now = T + 10_000;
    // Errors see a first; deliveries see b first, then a: one destination fits the budget.
    const budget = () => new KeyBudget(1, [errors0.series, deliveries0.series]);
    const shared = budget();
    const errors = poll(errors0, { ...LOG, now, maxSeries: 1, keys: shared }, [
      [event(T + 5, 'e1', ['a', '500']), event(T + 4, 'e2', ['b', '502'])],
    ]);
    const deliveries = poll(
      deliveries0,
      { ...LOG, now, maxSeries: 1, keys: new KeyBudget(1, [errors.state.series]) },
      [[event(T + 6, 'd1', ['b']), event(T + 3, 'd2', ['a'])]],
    );
    expect(errors.state.series.map((s) => s.labels)).toEqual([
      ['a', '500'],
      ['other', 'other'],
    ]);
    expect(deliveries.state.series.map((s) => s.labels)).toEqual([['other'], ['a']]);
    expect([...errors.folded]).toEqual(['key\u0000b']);
    // A second code of a kept destination beyond the cap keeps the destination's name.
    const more = poll(errors.state, { ...LOG, now, maxSeries: 1, keys: budget() }, [
      [event(T + 7, 'e3', ['a', '503'])],
    ]);
    expect(more.state.series.map((s) => s.labels)).toContainEqual(['a', 'other']);
  });

  it('the budget kept in the entry is one decision, whichever family polls first or at once', () => {
    const now = T + 10_000;
    const kept = { admitted: new Set<string>(), said: new Set<string>() };
    // Both polls begin before either counted anything: their budgets are built from empty series.
    const forErrors = new KeyBudget(1, [], kept);
    const forDeliveries = new KeyBudget(1, [], kept);
    const errors = poll(startState(T), { ...LOG, now, maxSeries: 1, keys: forErrors }, [
      [event(T + 5, 'e1', ['failing', '500'])],
    ]);
    const deliveries = poll(startState(T), { ...LOG, now, maxSeries: 1, keys: forDeliveries }, [
      [event(T + 6, 'd1', ['ok']), event(T + 3, 'd2', ['failing'])],
    ]);
    expect(errors.state.series.map((s) => s.labels[0])).toEqual(['failing']);
    expect(deliveries.state.series.map((s) => s.labels[0])).toEqual(['other', 'failing']);
    expect([...deliveries.folded]).toEqual(['key\u0000ok']);
    // The fold of `ok` is said once: not again by the next poll, nor by the other family.
    const next = poll(deliveries.state, { ...LOG, now, maxSeries: 1, keys: new KeyBudget(1, [], kept) }, [
      [event(T + 7, 'd3', ['ok'])],
    ]);
    const other = poll(errors.state, { ...LOG, now, maxSeries: 1, keys: new KeyBudget(1, [], kept) }, [
      [event(T + 8, 'e2', ['ok', '500'])],
    ]);
    expect([next.truncated, other.truncated]).toEqual([1, 1]);
    expect([...next.folded, ...other.folded]).toEqual([]);
  });

  it('a failure function state is never folded, whatever the cap', () => {
    const outcome = (state: string) => ({ labels: [state], final: true });
    const runs = Array.from({ length: 4 }, (_, k) => ({
      ...event(T + k, `r${k}`, [`w${k}`]),
      outcome: outcome('CALLBACK_FAIL'),
    }));
    const result = poll(startState(T), { ...RUNS, now: T + 1000, maxSeries: 1, keys: new KeyBudget(1, []) }, [
      runs,
    ]);
    expect(result.state.outcomes.map((s) => [s.labels, s.count])).toEqual([
      [['w0', 'CALLBACK_FAIL'], 1],
      [['other', 'CALLBACK_FAIL'], 3],
    ]);
  });
});

describe('exactly once, keyed by identity', () => {
  it('W is the greatest time counted, whatever the order runs are listed in', () => {
    const runs = [event(T + 10, 'r1'), event(T + 50, 'r2'), event(T + 30, 'r3')];
    expect(poll(startState(T), { ...RUNS, now: T + 1000 }, [runs]).state.watermark).toBe(T + 50);
  });

  it('a run re-stamped 700 ms later is the same run', () => {
    const first = poll(startState(T), { ...RUNS, now: T + 2000 }, [
      [{ ...event(T + 1000, 'r1@1'), value: 1 }],
    ]);
    const again = poll(first.state, { ...RUNS, now: T + 3000 }, [
      [{ ...event(T + 1700, 'r1@1'), value: 1.7 }],
    ]);
    expect(again.counted).toBe(0);
    expect(again.state.series).toEqual(first.state.series);
    // Kept with its latest time: the settle window after that.
    expect(again.state.kept).toEqual([{ identity: 'r1@1', time: T + 1700 }]);
  });

  it('an audit event listed at t and then t + 1 is counted once; a log message at two times is two events', () => {
    const audit: EventRuleOptions = { perSecond: 1, maxSeries: 10, ordered: false, settle: 30 };
    const t = T / 1000;
    const first = poll(startState(t - 10), { ...audit, now: t + 5 }, [[event(t, 'log_1')]]);
    expect(poll(first.state, { ...audit, now: t + 6 }, [[event(t + 1, 'log_1')]]).counted).toBe(0);
    const log = poll(startState(T), { ...LOG, now: T + 5000 }, [[event(T + 2, 'm1'), event(T + 1, 'm1')]]);
    expect(log.counted).toBe(2);
    expect(
      poll(log.state, { ...LOG, now: T + 6000 }, [[event(T + 2, 'm1'), event(T + 1, 'm1')]]).counted,
    ).toBe(0);
  });

  it('a failure function in progress counts once it is final, once, and the run at once', () => {
    const run = (state: string, final: boolean): CountedEvent => ({
      ...event(T + 1000, 'r1', ['w']),
      outcome: { labels: [state], final },
    });
    const options = { ...RUNS, pendingWindow: 3_600_000 };
    let result = poll(startState(T), { ...options, now: T + 2000 }, [[run('CALLBACK_INPROGRESS', false)]]);
    expect([result.counted, result.outcomes]).toEqual([1, 0]);
    expect(result.state.pending).toHaveLength(1);
    for (let n = 0; n < 9; n++) {
      result = poll(result.state, { ...options, now: T + 3000 + n * 1000 }, [[run('CALLBACK_FAIL', true)]]);
      expect(result.counted).toBe(0);
    }
    expect(result.state.outcomes).toEqual([
      { labels: ['w', 'CALLBACK_FAIL'], count: 1, sum: 0, buckets: [] },
    ]);
    expect(result.state.pending).toEqual([]);
    expect(total(result.state)).toBe(1);
  });

  it('one that leaves the lookback unfinished counts under CALLBACK_INPROGRESS, once', () => {
    const options = { ...RUNS, pendingWindow: 60_000 };
    const run = {
      ...event(T + 1000, 'r1', ['w']),
      outcome: { labels: ['CALLBACK_INPROGRESS'], final: false },
    };
    let result = poll(startState(T), { ...options, now: T + 2000 }, [[run]]);
    // A newer run moves W past the window: the pending one leaves it.
    result = poll(result.state, { ...options, now: T + 200_000 }, [[event(T + 150_000, 'r2', ['w'])]]);
    expect(result.outcomes).toBe(1);
    expect(result.state.outcomes.map((s) => [s.labels, s.count])).toEqual([
      [['w', 'CALLBACK_INPROGRESS'], 1],
    ]);
    result = poll(result.state, { ...options, now: T + 210_000 }, [[event(T + 150_000, 'r2', ['w'])]]);
    expect(result.outcomes).toBe(0);
  });

  it('pending runs are bounded as identities are: beyond, the oldest count as they are', () => {
    const runs = Array.from({ length: 5 }, (_, k) => ({
      ...event(T + k, `r${k}`, ['w']),
      outcome: { labels: ['CALLBACK_INPROGRESS'], final: false },
    }));
    const result = poll(startState(T), { ...RUNS, now: T + 100, maxKept: 3, pendingWindow: 3_600_000 }, [
      runs,
    ]);
    expect(result.state.pending.map((p) => p.identity)).toEqual(['r4', 'r3', 'r2']);
    expect(result.outcomes).toBe(2);
    expect(result.state.outcomes.map((s) => [s.labels, s.count])).toEqual([
      [['w', 'CALLBACK_INPROGRESS'], 2],
    ]);
  });
});
