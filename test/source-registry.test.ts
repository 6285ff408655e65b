import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { dynamicImports, loaded, SRC } from './helpers/imports.js';
import { DATA_METRICS, SOURCE_KINDS, sourceKind } from '../src/sources/kinds.js';
import { SOURCES } from '../src/source-registry.js';
import {
  onOwnSchedule,
  ownScheduleOf,
  ownSchedules,
  SOURCE_NAMES,
  type SourceName,
} from '../src/vocabulary.js';

const NAMES = Object.keys(SOURCES) as SourceName[];

describe('the registry of sources', () => {
  test('each row loads the kind of its own name and API, in the order of the rows', () => {
    // The compiler checks this too (sources/kinds.ts, EveryRowItsKind); this is what the worker runs.
    expect(SOURCE_KINDS.map((kind) => kind.name)).toEqual(NAMES);
    for (const name of NAMES) {
      expect(sourceKind(name).name).toBe(name);
    }
    expect(DATA_METRICS).toEqual(SOURCE_KINDS.flatMap((kind) => kind.metrics));
  });

  test('lists every source under the API of its row', () => {
    // The lists themselves, as users read them, are test/config/load.test.ts's (every source by default).
    expect([...SOURCE_NAMES.qstash, ...SOURCE_NAMES.management].sort()).toEqual([...NAMES].sort());
    for (const name of SOURCE_NAMES.qstash) expect(SOURCES[name].api).toBe('qstash');
    for (const name of SOURCE_NAMES.management) expect(SOURCES[name].api).toBe('management');
  });

  test('gives each API its own schedules and the sources on each', () => {
    expect(ownSchedules('qstash')).toEqual(['dlq', 'events']);
    expect(ownSchedules('management')).toEqual(['backups', 'audit']);
    expect(onOwnSchedule('qstash', 'dlq')).toEqual(['dlq', 'workflow_dlq']);
    expect(onOwnSchedule('qstash', 'events')).toEqual(['qstash_logs', 'workflow_runs']);
    expect(onOwnSchedule('management', 'backups')).toEqual(['redis_backups']);
    expect(onOwnSchedule('management', 'audit')).toEqual(['audit_logs', 'teams', 'qstash_egress_ips']);
    expect(ownScheduleOf('teams')).toBe('audit');
    expect(ownScheduleOf('redis_stats')).toBeUndefined();
  });

  test('loads no module that imports, however indirectly, a reader awaiting the rows', () => {
    // kinds.ts and demo/routes.ts await every row's import() as they load: a module a row names that
    // imported either would wait for that await, which waits for it, and the program would hang
    // without a word. The compiler cannot see this; the imports can.
    const awaiting = [join(SRC, 'sources/kinds.ts'), join(SRC, 'demo/routes.ts')];
    const named = dynamicImports(join(SRC, 'source-registry.ts'));
    expect(named.length).toBeGreaterThanOrEqual(NAMES.length);
    for (const module of named) {
      const { files } = loaded([module.slice(SRC.length + 1)]);
      expect(
        awaiting.filter((reader) => files.has(reader)),
        module,
      ).toEqual([]);
    }
  });
});
