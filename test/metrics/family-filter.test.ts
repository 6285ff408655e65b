import { describe, expect, it } from 'vitest';
import { ALL_FAMILIES, compileNamePattern, familyPredicate } from '../../src/metrics/family-filter.js';
import { regexProblem } from '../../src/metrics/relabel-regex.js';

describe('metric family patterns (metrics.allow, metrics.deny)', () => {
  it('match whole names, as kube-state-metrics and Prometheus relabelling do', () => {
    const up = compileNamePattern('upstash_up');
    expect(up('upstash_up')).toBe(true);
    expect(up('upstash_upx')).toBe(false);
    expect(up('xupstash_up')).toBe(false);
    const exporter = compileNamePattern('upstash_exporter_.*');
    expect(exporter('upstash_exporter_polls_total')).toBe(true);
    expect(exporter('upstash_redis_keys')).toBe(false);
    // An alternation stays inside the anchors.
    const either = compileNamePattern('process_.*|nodejs_.*');
    expect(either('nodejs_heap_size_used_bytes')).toBe(true);
    expect(either('upstash_process_x')).toBe(false);
  });

  it('refuse what does not compile, alone or anchored, without quoting it', () => {
    for (const pattern of ['[', 'a)|(b', '(?<', 'x{2,1}', '*secret-looking-value']) {
      const problem = regexProblem(pattern);
      expect(problem, pattern).toMatch(/^is not a valid regular expression \(RE2 syntax\): /);
      expect(problem, pattern).not.toContain(pattern);
    }
    expect(regexProblem('upstash_(redis|qstash)_.+')).toBeUndefined();
  });
});

describe('familyPredicate', () => {
  it('shows a family allowed (all when allow is empty) and not denied', () => {
    expect(familyPredicate({ allow: [], deny: [] })).toBe(ALL_FAMILIES);
    const keep = familyPredicate({ allow: ['upstash_.*'], deny: ['upstash_exporter_.*', 'upstash_up'] });
    expect(keep('upstash_redis_keys')).toBe(true);
    expect(keep('upstash_up')).toBe(false);
    expect(keep('upstash_exporter_build_info')).toBe(false);
    expect(keep('process_cpu_seconds_total')).toBe(false);
    const denyOnly = familyPredicate({ allow: [], deny: ['nodejs_.*'] });
    expect(denyOnly('nodejs_eventloop_lag_seconds')).toBe(false);
    expect(denyOnly('process_cpu_seconds_total')).toBe(true);
  });
});
