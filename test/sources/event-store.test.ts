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

  test('a source a reload lists again starts at that reload, without the state its last poll left', () => {
    let now = 1000;
    const store = new EventStore({ now: () => now });
    store.retain([{ key: 'qstash/a', sources: ['qstash_logs'] }]);
    expect(store.of('qstash/a', 'qstash_logs').since).toBe(1000);
    store
      .of('qstash/a', 'qstash_logs')
      .states.set('qstash_logs/ERROR', { ...startState(1000), watermark: 3000 });
    now = 5000;
    store.retain([{ key: 'qstash/a', sources: [] }]);
    expect(store.of('qstash/a').states.size).toBe(0);
    // A poll in flight at that reload lands after it.
    store
      .of('qstash/a', 'qstash_logs')
      .states.set('qstash_logs/ERROR', { ...startState(1000), watermark: 4000 });
    now = 9000;
    store.retain([{ key: 'qstash/a', sources: ['qstash_logs', 'workflow_runs'] }]);
    expect(store.of('qstash/a', 'qstash_logs').since).toBe(9000);
    expect(store.of('qstash/a', 'workflow_runs').since).toBe(9000);
    expect(store.of('qstash/a').states.size).toBe(0);
    // The entry's own start stays; a source kept keeps its start; a restarted worker carries them.
    store
      .of('qstash/a', 'qstash_logs')
      .states.set('qstash_logs/ERROR', { ...startState(9000), watermark: 9500 });
    now = 12_000;
    store.retain([{ key: 'qstash/a', sources: ['qstash_logs'] }]);
    expect(store.of('qstash/a').since).toBe(1000);
    expect(store.of('qstash/a', 'qstash_logs').since).toBe(9000);
    const carried = new EventStore({ now: () => 20_000, from: store.snapshot() });
    carried.retain([{ key: 'qstash/a', sources: ['qstash_logs'] }]);
    expect(carried.of('qstash/a', 'qstash_logs').since).toBe(9000);
    expect(carried.of('qstash/a').states.get('qstash_logs/ERROR')?.watermark).toBe(9500);
  });
});
