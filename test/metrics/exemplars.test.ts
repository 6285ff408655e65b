import { describe, expect, it } from 'vitest';
import { counter } from '../../src/metrics/catalogue.js';
import { formatExemplar } from '../../src/metrics/exposition.js';
import type { Sample } from '../../src/metrics/sample.js';
import { SectionStore } from '../../src/metrics/section-store.js';
import { renderUnit } from '../../src/metrics/unit-bytes.js';
import { EventScan, startState, type CountedEvent } from '../../src/sources/event-rule.js';

// Exemplars (docs/metrics.md, Exemplars): kept per series by the event rule, rendered by the unit
// after a sample in the OpenMetrics answer only, left out past 128 characters.

const ERRORS = counter('upstash_test_errors_total', 'Errors.');

function errorSample(account: string, count: number, id?: string): Sample {
  const labels = [['account', account]] as const;
  return id === undefined
    ? { metric: ERRORS, labels, value: count }
    : {
        metric: ERRORS,
        labels,
        value: count,
        exemplar: { labels: [['message_id', id]], value: 1, timestamp: 1.5 },
      };
}

describe('formatExemplar', () => {
  it('writes labels, value and timestamp; leaves out a label set past 128 characters, never cut', () => {
    const fits = 'x'.repeat(128 - 'message_id'.length);
    expect(formatExemplar({ labels: [['message_id', 'msg_1']], value: 1, timestamp: 1700000000.25 })).toBe(
      ' # {message_id="msg_1"} 1 1700000000.25',
    );
    expect(formatExemplar({ labels: [['message_id', fits]], value: 1, timestamp: 1 })).toContain(fits);
    expect(formatExemplar({ labels: [['message_id', `${fits}y`]], value: 1, timestamp: 1 })).toBeUndefined();
    // Characters, not bytes: 118 two-byte characters fit.
    expect(
      formatExemplar({ labels: [['message_id', 'é'.repeat(118)]], value: 1, timestamp: 1 }),
    ).toBeDefined();
  });
});

describe('a section with exemplars', () => {
  it('serves them in OpenMetrics only; a unit without one is the same in both', () => {
    const store = new SectionStore([ERRORS]);
    store.apply([
      { id: 'a', unit: renderUnit([errorSample('a', 3, 'msg_a')]) },
      { id: 'b', unit: renderUnit([errorSample('b', 2)]) },
    ]);
    const text = Buffer.concat(store.render('text')).toString('utf8');
    const open = Buffer.concat(store.render('openmetrics')).toString('utf8');
    expect(text).not.toContain(' # {');
    expect(text).toContain(
      'upstash_test_errors_total{account="a"} 3\nupstash_test_errors_total{account="b"} 2\n',
    );
    expect(open).toContain(
      'upstash_test_errors_total{account="a"} 3 # {message_id="msg_a"} 1 1.5\nupstash_test_errors_total{account="b"} 2\n',
    );
    // A unit that changes reaches both formats' blocks: b gets an exemplar, a loses its own.
    store.apply([
      { id: 'a', unit: renderUnit([errorSample('a', 4)]) },
      { id: 'b', unit: renderUnit([errorSample('b', 5, 'msg_b')]) },
    ]);
    expect(Buffer.concat(store.render('openmetrics')).toString('utf8')).toContain(
      'upstash_test_errors_total{account="a"} 4\nupstash_test_errors_total{account="b"} 5 # {message_id="msg_b"} 1 1.5\n',
    );
    expect(Buffer.concat(store.render('text')).toString('utf8')).not.toContain('msg_b');
  });
});

describe('the event rule', () => {
  /** A plausible time (the rule refuses times before 2015), in ms. */
  const T0 = 1_800_000_000_000;
  const event = (time: number, id: string): CountedEvent => ({
    time: T0 + time,
    identity: id,
    labels: ['x'],
    exemplar: id,
  });
  const options = { perSecond: 1000, maxSeries: 10, ordered: true, settle: 30_000 };

  it("keeps each series' newest event as its exemplar, across polls; a late older one does not replace it", () => {
    const first = new EventScan(startState(T0), options);
    first.read([event(2000, 'b'), event(1000, 'a')]);
    const one = first.finish(true).state;
    expect(one.series[0]?.exemplar).toEqual({ id: 'b', time: T0 + 2000, value: 1 });
    // The next poll reads a late event, older than b, and nothing newer.
    const second = new EventScan(one, options);
    second.read([event(2000, 'b'), event(1500, 'late')]);
    const two = second.finish(true).state;
    expect(two.series[0]?.count).toBe(3);
    expect(two.series[0]?.exemplar?.id).toBe('b');
    const third = new EventScan(two, options);
    third.read([event(3000, 'c')]);
    expect(third.finish(true).state.series[0]?.exemplar).toEqual({ id: 'c', time: T0 + 3000, value: 1 });
  });
});
