#!/usr/bin/env node
// Writes prometheus/alerts.yml for your Prometheus, as the monitoring mixins' `_config` does: the job
// selector of every expression and the base of every runbook link set from flags, everything else
// (comments, thresholds, layout) byte for byte. A runbook link must open from a notification: without
// --runbook-base-url (the project publishes no URL of its own to default to) the runbook_url lines are
// left out rather than printed relative to a repository the reader of a page cannot resolve.
//
//   node scripts/alert-rules.mjs --job-selector 'job="upstash-prod"' \
//     --runbook-base-url https://github.com/acme/upstash-exporter/blob/main > upstash-alerts.yml
//   promtool check rules upstash-alerts.yml
//
// alerts.yml is the template: every selector of every expression carries job="upstash" and every
// runbook_url starts docs/troubleshooting.md# (test/alert-rules.test.ts holds it to both), so replacing
// those two inside `expr` and `runbook_url` values, and nowhere else, is the whole job. The Helm chart's
// PrometheusRule does the same from serviceMonitor.jobName and prometheusRule.runbookBaseUrl.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMap, isPair, isScalar, parseDocument, visit } from 'yaml';

export const DEFAULT_JOB_SELECTOR = 'job="upstash"';
export const RUNBOOK_PATH = 'docs/troubleshooting.md#';

// One or more PromQL label matchers, comma-separated: job="x", namespace=~"prod-.*"
const MATCHER = String.raw`\s*[A-Za-z_][A-Za-z0-9_]*\s*(?:=|!=|=~|!~)\s*"(?:[^"\\\n]|\\.)*"\s*`;
const SELECTOR = new RegExp(`^${MATCHER}(?:,${MATCHER})*$`);

/**
 * The rule file `text` with `jobSelector` in place of job="upstash" in every expression, and
 * `runbookBaseUrl` (the repository's root as a browsable URL) before every runbook_url; with no base,
 * without the runbook_url lines.
 */
export function instantiate(text, { jobSelector = DEFAULT_JOB_SELECTOR, runbookBaseUrl = '' } = {}) {
  if (!SELECTOR.test(jobSelector)) {
    throw new Error(`--job-selector: expected label matchers such as job="upstash-prod", got ${jobSelector}`);
  }
  let base = '';
  if (runbookBaseUrl !== '') {
    // Only what a notification's reader can open (the chart's values.schema.json says the same).
    if (!/^https?:\/\/\S+$/.test(runbookBaseUrl) || !URL.canParse(runbookBaseUrl)) {
      throw new Error(`--runbook-base-url: expected an absolute http(s) URL, got ${runbookBaseUrl}`);
    }
    base = runbookBaseUrl.endsWith('/') ? runbookBaseUrl : `${runbookBaseUrl}/`;
  }
  const document = parseDocument(text, { keepSourceTokens: true });
  if (document.errors.length > 0) throw new Error(`not a YAML file: ${document.errors[0].message}`);
  const edits = [];
  visit(document, {
    Pair(_, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !isScalar(pair.value) || !pair.value.range) return;
      const [start, end] = pair.value.range;
      const source = text.slice(start, end);
      if (pair.key.value === 'expr') {
        edits.push({ start, end, text: source.replaceAll(DEFAULT_JOB_SELECTOR, () => jobSelector) });
      } else if (pair.key.value === 'runbook_url' && source.startsWith(RUNBOOK_PATH)) {
        if (base !== '') {
          edits.push({ start, end, text: base + source });
        } else if (pair.key.range) {
          // The whole line goes: `runbook_url: docs/…` is one plain scalar on one line.
          const lineStart = text.lastIndexOf('\n', pair.key.range[0]) + 1;
          const newline = text.indexOf('\n', end);
          edits.push({ start: lineStart, end: newline === -1 ? text.length : newline + 1, text: '' });
        }
      }
    },
  });
  if (!isMap(document.contents) || !document.contents.has('groups')) throw new Error('not a rule file');
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  return out;
}

function main() {
  const { values } = parseArgs({
    options: {
      'job-selector': { type: 'string', default: DEFAULT_JOB_SELECTOR },
      'runbook-base-url': { type: 'string', default: '' },
      rules: { type: 'string', default: fileURLToPath(new URL('../prometheus/alerts.yml', import.meta.url)) },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: node scripts/alert-rules.mjs [--job-selector \'job="upstash"\'] [--runbook-base-url URL]\n' +
        '                                  [--rules prometheus/alerts.yml] > alerts.yml\n',
    );
    return;
  }
  process.stdout.write(
    instantiate(readFileSync(values.rules, 'utf8'), {
      jobSelector: values['job-selector'],
      runbookBaseUrl: values['runbook-base-url'],
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error(`alert-rules: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
  }
}
