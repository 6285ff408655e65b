import { describe, expect, test } from 'vitest';
import { startState } from '../../src/sources/event-rule.js';
import { EventStore } from '../../src/sources/event-store.js';

describe('the event store', () => {
  test('a reload that keeps an entry keeps its states; a source or entry removed drops them', () => {
    let now = 1000;
    const store = new EventStore({ now: () => now });
    store.retain([{ key: 'qstash/a', sources: ['qstash_logs', 'workflow_runs'] }]);
    const entry = store.of('qstash/a');
    entry.states.set('qstash_logs/ERROR', { ...startState(entry.since), watermark: 5000 });
    entry.states.set('workflow_runs/RUN_FAILED', startState(entry.since));
    entry.sdkPaths.add('workflow_runs');
    now = 9000;
    store.retain([
      { key: 'qstash/a', sources: ['qstash_logs'] },
      { key: 'qstash/b', sources: ['qstash_logs'] },
    ]);
    expect(store.of('qstash/a').since).toBe(1000);
    expect([...store.of('qstash/a').states.keys()]).toEqual(['qstash_logs/ERROR']);
    expect(store.of('qstash/a').states.get('qstash_logs/ERROR')?.watermark).toBe(5000);
    expect(store.of('qstash/a').sdkPaths.size).toBe(0);
    expect(store.of('qstash/b').since).toBe(9000);
    store.retain([{ key: 'qstash/b', sources: ['qstash_logs'] }]);
    now = 12_000;
    expect(store.of('qstash/a').since).toBe(12_000);
    expect(store.of('qstash/a').states.size).toBe(0);
  });
});
