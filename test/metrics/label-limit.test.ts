import { describe, expect, it } from 'vitest';
import {
  labelKey,
  limitLabelValue,
  limitSampleLabels,
  MAX_LABEL_VALUE_LENGTH,
} from '../../src/metrics/label-limit.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';

describe('limitLabelValue', () => {
  it('keeps a key apart from another key spelled like its shortened form', () => {
    const long = 'k'.repeat(MAX_LABEL_VALUE_LENGTH + 10);
    const spelledLikeIt = limitLabelValue(long);
    expect(spelledLikeIt).not.toBe(long);
    // The literal key equal to the long key's rewritten form gets a rewritten form of its own.
    expect(limitLabelValue(spelledLikeIt)).not.toBe(spelledLikeIt);
    const { samples } = limitSampleLabels(
      flowControlSamples(
        'eu',
        [
          { key: long, waitListSize: 1 },
          { key: spelledLikeIt, waitListSize: 2 },
        ],
        10,
      ),
    );
    const keys = samples.flatMap((s) => s.labels.filter(([name]) => name === 'flow_control_key'));
    expect(new Set(keys.map(([, value]) => value)).size).toBe(2);
  });

  it('leaves ordinary values, also ones with a tilde, alone', () => {
    for (const value of ['tenant-1', 'a~b', 'x~0123', `~${'f'.repeat(15)}`]) {
      expect(limitLabelValue(value)).toBe(value);
    }
  });

  it('counts repaired values (lone surrogates) as rewritten, as the README says', () => {
    const { truncated } = limitSampleLabels(
      flowControlSamples('eu', [{ key: 'a\uD800b', waitListSize: 1 }], 10),
    );
    expect(truncated).toBe(1);
  });
});

describe('labelKey', () => {
  const long = (head: string, tail: string) => `${head.padEnd(80_000, 'n')}${tail}`;

  it('keeps a value within the cap as it is, and a longer one as a bounded stand-in', () => {
    for (const value of ['orders', 'k'.repeat(MAX_LABEL_VALUE_LENGTH), 'a\uD800b'])
      expect(labelKey(value)).toBe(value);
    const key = labelKey(long('q1-', ''));
    expect(key.length).toBe(MAX_LABEL_VALUE_LENGTH + 65);
  });

  it('keeps values that differ past the cap apart, and labels them as limitLabelValue would (the same head, counted once each)', () => {
    const a = long('q-', 'a');
    const b = long('q-', 'b');
    expect(labelKey(a)).not.toBe(labelKey(b));
    expect(labelKey(a)).toBe(labelKey(a));
    const { samples, truncated } = limitSampleLabels(
      flowControlSamples(
        'eu',
        [
          { key: labelKey(a), waitListSize: 1 },
          { key: labelKey(b), waitListSize: 2 },
        ],
        10,
      ),
    );
    expect(truncated).toBe(2);
    const values = samples.flatMap((s) =>
      s.labels.filter(([n]) => n === 'flow_control_key').map(([, v]) => v),
    );
    expect(new Set(values).size).toBe(2);
    for (const value of values) {
      expect(value.length).toBeLessThanOrEqual(MAX_LABEL_VALUE_LENGTH);
      expect(value.slice(0, -17)).toBe(limitLabelValue(a).slice(0, -17));
    }
  });
});
