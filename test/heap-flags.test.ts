import { describe, expect, it } from 'vitest';
import { heapFlags } from '../src/heap-flags.js';

describe('heapFlags', () => {
  it('sets both settings when the user gave neither', () => {
    expect(heapFlags([], '')).toEqual(['--optimize-for-size', '--semi-space-growth-factor=1']);
    expect(heapFlags(['--enable-source-maps'], '--trace-warnings')).toHaveLength(2);
  });

  it("leaves a setting to the user's own flag, on the command line or in NODE_OPTIONS, in either spelling", () => {
    expect(heapFlags(['--no-optimize-for-size'])).toEqual(['--semi-space-growth-factor=1']);
    // --max-semi-space-size is the one of these that Node admits in NODE_OPTIONS.
    expect(heapFlags([], ' --max-semi-space-size=16  --trace-warnings ')).toEqual(['--optimize-for-size']);
    expect(heapFlags(['--max_semi_space_size=16', '--optimize_for_size'])).toEqual([]);
    expect(heapFlags(['--min-semi-space-size=4', '--semi-space-growth-factor=2'])).toEqual([
      '--optimize-for-size',
    ]);
  });
});
