import { describe, expect, it } from 'vitest';
import { limitLabelValue, limitSampleLabels, MAX_LABEL_VALUE_LENGTH } from '../../src/metrics/label-limit.js';
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
