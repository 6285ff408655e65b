import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DataSeries } from '../../src/metrics/data-series.js';
import { createSelfMetrics } from '../../src/poller/self-metrics.js';
import { limitLabelValue, limitSampleLabels, MAX_LABEL_VALUE_LENGTH } from '../../src/metrics/label-limit.js';
import { flowControlSamples } from '../../src/sources/flow-control.js';
import { DATA_METRICS } from '../../src/sources/kinds.js';
import { urlGroupSamples } from '../../src/sources/url-groups.js';
import { parseFlowControl } from '../../src/upstash/flow-control.js';
import { parseUrlGroups } from '../../src/upstash/url-groups.js';
import { parseExposition } from '../helpers/exposition-parser.js';
import { Served } from '../helpers/served.js';

// Arbitrary flow-control keys and URL-group names — quotes, backslashes, newlines, control
// characters, lone surrogates, very long — go through the real path (JSON body → parser → samples →
// label limit → exposition) and must give text that promtool accepts and that parses back to the
// same label values (for values that need no repair; otherwise to exactly limitLabelValue's output,
// still one distinct value per key).

const PROMTOOL = '/usr/bin/promtool';
const havePromtool = existsSync(PROMTOOL);
if (!havePromtool && process.env.CI === 'true') {
  throw new Error(`${PROMTOOL} is required in CI (Debian package "prometheus")`);
}

const tricky = fc.constantFrom(
  '"',
  '\\',
  '\n',
  '\r',
  '\t',
  '\0',
  '\x7f',
  '\uD800',
  '\uDFFF',
  'é',
  '😀',
  '{',
  '}',
  '=',
  ',',
  ' ',
  '#',
);
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const unit = fc.oneof(tricky, codeUnit, fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
const labelValue = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit, minLength: MAX_LABEL_VALUE_LENGTH - 20, maxLength: 3000 }) },
  // Long values sharing a prefix: the cut must keep them apart.
  { weight: 1, arbitrary: fc.string({ unit, maxLength: 5 }).map((tail) => 'p'.repeat(1500) + tail) },
);
// Upstash names are never empty (an empty one is invalid_response, tested with the parsers).
const names = fc.uniqueArray(
  labelValue.filter((value) => value !== ''),
  { maxLength: 12 },
);

async function render(keys: readonly string[], groups: readonly string[]): Promise<string> {
  // Through JSON text, as the bytes would arrive (JSON.stringify escapes lone surrogates).
  const flowBody: unknown = JSON.parse(
    JSON.stringify({ flowControls: keys.map((k, i) => ({ flowControlKey: k, waitListSize: i })) }),
  );
  const groupBody: unknown = JSON.parse(
    JSON.stringify(
      groups.map((name, i) => ({ name, createdAt: 1e12 + i, updatedAt: 1e12 + i, endpoints: [] })),
    ),
  );
  const series = new DataSeries(DATA_METRICS);
  const { entries: keyEntries } = await parseFlowControl(flowBody);
  const { entries: groupEntries } = await parseUrlGroups(groupBody);
  series.replace('a', limitSampleLabels(flowControlSamples('eu', keyEntries, 1000)).samples);
  series.replace('b', limitSampleLabels(urlGroupSamples('eu', groupEntries, 1000)).samples);
  return new Served(series, createSelfMetrics()).data();
}

function promtool(text: string): { status: number | null; output: string } {
  const result = spawnSync(PROMTOOL, ['check', 'metrics'], {
    input: Buffer.from(text, 'utf8'),
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function labelValues(text: string, metric: string, label: string): string[] {
  return parseExposition(text)
    .filter((s) => s.name === metric)
    .map((s) => s.labels[label] ?? '');
}

describe('exposition of arbitrary keys and group names', () => {
  test('round-trips to the same label values, one series per key, every value bounded', async () => {
    await fc.assert(
      fc.asyncProperty(names, names, async (keys, groups) => {
        const text = await render(keys, groups);
        // The text survives UTF-8 (what goes on the wire) unchanged: no lone surrogate is left.
        expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
        const keyValues = labelValues(text, 'upstash_qstash_flow_control_wait_list_size', 'flow_control_key');
        const groupValues = labelValues(text, 'upstash_qstash_url_group_endpoints', 'url_group');
        expect(new Set(keyValues)).toEqual(new Set(keys.map(limitLabelValue)));
        expect(new Set(groupValues)).toEqual(new Set(groups.map(limitLabelValue)));
        expect(new Set(keyValues).size).toBe(keys.length);
        expect(new Set(groupValues).size).toBe(groups.length);
        for (const value of [...keyValues, ...groupValues]) {
          expect(value.length).toBeLessThanOrEqual(MAX_LABEL_VALUE_LENGTH);
        }
        for (const key of [...keys, ...groups]) {
          if (
            key.length <= MAX_LABEL_VALUE_LENGTH &&
            !/[\uD800-\uDFFF]/.test(key.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))
          )
            expect(limitLabelValue(key)).toBe(key);
        }
      }),
      { numRuns: 300 },
    );
  });

  test.skipIf(!havePromtool)('promtool check metrics accepts the text', async () => {
    await fc.assert(
      fc.asyncProperty(names, names, async (keys, groups) => {
        const { status, output } = promtool(await render(keys, groups));
        expect(output).toBe('');
        expect(status).toBe(0);
      }),
      { numRuns: 40 },
    );
  });

  test('the truncation counter counts each cut value once per poll', () => {
    const metrics = createSelfMetrics();
    const labels = { source: 'url_groups', account: 'eu', database_id: '', qstash_id: '', index_id: '' };
    const groups = ['short', 'x'.repeat(2000), 'y'.repeat(1025)].map((name) => ({
      name,
      createdAt: 0,
      updatedAt: 0,
      endpointCount: 1,
    }));
    for (let poll = 0; poll < 2; poll++) {
      metrics.labelValuesTruncated(labels, limitSampleLabels(urlGroupSamples('eu', groups, 1000)).truncated);
    }
    const text = new Served(new DataSeries(DATA_METRICS), metrics).health();
    expect(text).toContain(
      'upstash_exporter_label_values_truncated_total{source="url_groups",account="eu",database_id="",qstash_id="",index_id=""} 4',
    );
  });
});
