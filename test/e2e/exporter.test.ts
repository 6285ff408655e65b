import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
} from '../../src/demo/simulator.js';
import {
  startExporter,
  waitForStatus,
  writeConfig,
  type ExporterProcess,
} from '../helpers/exporter-process.js';

// The golden file of the whole data and health exposition, as node_exporter's e2e-output.txt.
// Regenerate with: UPDATE_GOLDEN=1 npx vitest run test/e2e/exporter.test.ts
const GOLDEN = fileURLToPath(new URL('../fixtures/e2e-output.txt', import.meta.url));
const FROZEN_NOW = Date.UTC(2026, 10, 1, 12, 0, 0);
// Discovery before and after the account's databases change, filtered by include/exclude.
const DISCOVERY_GOLDEN = fileURLToPath(new URL('../fixtures/e2e-discovery-output.txt', import.meta.url));

/**
 * The golden file's text; with UPDATE_GOLDEN=1, `actual` written first. A missing file fails: written
 * on the spot, it would be compared with itself and pass whatever the exporter served.
 */
function golden(path: string, actual: string): string {
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  else if (!existsSync(path)) throw new Error(`${path} is missing: make it with UPDATE_GOLDEN=1`);
  return readFileSync(path, 'utf8');
}

/**
 * Our own lines of /metrics with the values that differ from run to run replaced by placeholders.
 * Samples are sorted within each family: their order follows which poll finished first, which
 * Prometheus does not care about and a golden file must not either.
 */
function normalise(body: string): string {
  const lines = body
    .split('\n')
    .filter((line) => /^(# (HELP|TYPE) )?upstash_/.test(line))
    .map((line) =>
      line
        .replace(
          // (The audit log's watermark is the second the exporter started, its one event a minute later.)
          /^((?:upstash_exporter_(?:last_success_timestamp|poll_duration)|upstash_audit_(?:log_watermark|last_event)_timestamp)_seconds\{[^}]*\}) .*$/,
          '$1 <varies>',
        )
        // W starts at the exporter's start (the frozen simulator's events are all before it).
        .replace(/^(upstash_[a-z_]+_watermark_timestamp_seconds\{[^}]*\}) .*$/, '$1 <varies>')
        .replace(/node_version="[^"]*"/, 'node_version="<node>"')
        // test/e2e/version.test.ts holds these to package.json and the build; a release changes no golden
        // file.
        .replace(
          /^(upstash_exporter_build_info\{version=)"[^"]*",revision="[^"]*"/,
          '$1"<version>",revision="<revision>"',
        ),
    );
  const out: string[] = [];
  let samples: string[] = [];
  for (const line of [...lines, '# end']) {
    if (line.startsWith('#')) {
      out.push(...samples.sort());
      samples = [];
      out.push(line);
    } else {
      samples.push(line);
    }
  }
  return `${out.slice(0, -1).join('\n')}\n`;
}

describe('the built exporter against the simulator', () => {
  let sim: Simulator;
  let exporter: ExporterProcess;

  beforeAll(async () => {
    sim = await startSimulator({ frozen: true, now: () => FROZEN_NOW });
    // The frozen audit log is history (before the exporter starts): one event dated a minute from now,
    // after the start and within the 5 minutes an event may be ahead (docs/metrics.md, Event
    // counters), is counted, so that the golden file shows upstash_audit_events_total.
    sim.setAuditLog([
      {
        log_id: 'golden-1',
        timestamp: Math.floor(Date.now() / 1000) + 60,
        action_string: 'Delete Database',
        source: 'API_KEY - ci',
      },
    ]);
    // Polled once, at start-up (the schedule fires on 1 January only), so counters are exact.
    const config = writeConfig(`
log_level: debug
qstash:
  - name: eu
    url: ${sim.url}/
    token: \${TEST_QSTASH_TOKEN}
    schedule: "0 0 0 1 1 *"
    events_interval: 24h
    # Every source, qstash_deliveries too (polled only when listed).
    sources: [flow_control, url_groups, queues, schedules, global_parallelism, dlq, workflow_dlq, qstash_logs, qstash_deliveries, workflow_runs]
management:
  - name: main
    url: ${sim.url}
    email: ${DEMO_EMAIL}
    api_key_file: api-key.txt
    databases: [db-demo-cache, db-demo-events, db-missing]
    schedule: "0 0 0 1 1 *"
    backups_interval: 24h
    # Every source, teams too (polled only when listed); the discovered entry polls the defaults.
    sources: [databases, redis_stats, redis_backups, qstash_users, qstash_stats, vector_indexes, vector_stats, search_indexes, search_stats, audit_logs, teams, qstash_egress_ips]
  - name: discovered
    url: ${sim.url}
    email: ${DEMO_EMAIL}
    api_key_file: api-key.txt
    include: [".*-prod", "hobby-.*", "legacy-.*"]
    exclude: ["sessions-.*"]
    schedule: "0 0 0 1 1 *"
    backups_interval: 24h
`);
    writeFileSync(config.replace(/config\.yml$/, 'api-key.txt'), `  ${DEMO_API_KEY}\n`);
    exporter = await startExporter(['--config', config], { TEST_QSTASH_TOKEN: DEMO_QSTASH_TOKEN });
    await waitForStatus(`${exporter.url}/readyz`, 200);
  });

  afterAll(async () => {
    await exporter.stop();
    await sim.stop();
  });

  it('serves every series as the golden file says', async () => {
    const body = await (await fetch(`${exporter.url}/metrics`)).text();
    const actual = normalise(body);
    expect(actual).toBe(golden(GOLDEN, actual));
  });

  it('escapes quotes, backslashes and newlines in label values and keeps non-ASCII', async () => {
    const body = await (await fetch(`${exporter.url}/metrics`)).text();
    expect(body).toContain('flow_control_key="tenant \\"café\\" \\\\ eu\\nbatch"');
    expect(body).toContain('url_group="crème-brûlée \\"beta\\" \\\\ v2\\nlegacy"');
  });

  it('calls Upstash only when polling, never when scraped', async () => {
    const requests = (): number =>
      sim.requests('flow_control') +
      sim.requests('url_groups') +
      sim.requests('databases') +
      sim.requests('redis_stats');
    const before = requests();
    await Promise.all(Array.from({ length: 5 }, async () => (await fetch(`${exporter.url}/metrics`)).text()));
    expect(requests()).toBe(before);
    // flow_control, url_groups, two listings, three configured stats and three discovered ones.
    expect(before).toBe(10);
  });

  it('serves OpenMetrics when asked, with counters named by family and a final # EOF', async () => {
    const response = await fetch(`${exporter.url}/metrics`, {
      headers: { accept: 'application/openmetrics-text;version=1.0.0;q=0.75,text/plain;version=0.0.4;q=0.5' },
    });
    expect(response.headers.get('content-type')).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
    const body = await response.text();
    expect(body.endsWith('# EOF\n')).toBe(true);
    expect(body).toContain('# TYPE upstash_exporter_polls counter\n');
    expect(body).toMatch(
      /^upstash_exporter_polls_total\{source="flow_control",account="eu",database_id="",qstash_id="",index_id=""\} 1$/m,
    );
  });

  it('serves the text format by default', async () => {
    const response = await fetch(`${exporter.url}/metrics`);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('answers the landing page, health, 404 and 405 as docs/operations.md says', async () => {
    const landing = await fetch(`${exporter.url}/`);
    expect(landing.status).toBe(200);
    const html = await landing.text();
    expect(html).toContain('href="./metrics"');
    // The page groups by account then source (one row per unit used to carry every label in its own
    // cell): the redis_stats group of account main has db-missing down.
    const main = html.slice(html.indexOf('Account <q>main</q>'));
    const redisStats = /<tbody><tr class="group"><th scope="rowgroup"[^>]*>redis_stats.*?<\/tbody>/s.exec(
      main,
    )?.[0];
    expect(redisStats).toMatch(
      /<span class="id">db-missing<\/span><\/td><td><span class="state down">down<\/span><span class="detail">not_found \(HTTP 404\)/,
    );
    expect((await fetch(`${exporter.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${exporter.url}/nope`)).status).toBe(404);
    const post = await fetch(`${exporter.url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${exporter.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('survives request lines that URL parsers choke on, and answers them 404', async () => {
    const { port } = new URL(exporter.url);
    for (const target of ['//[', '//metrics', '/%', 'http://[']) {
      const status = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        });
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
        socket.on('error', reject);
      });
      expect(status).toBe('HTTP/1.1 404 Not Found');
    }
    expect((await fetch(`${exporter.url}/healthz`)).status).toBe(200);
  });

  it('never prints a secret: not in logs at debug level, /metrics or the landing page', async () => {
    const basic = Buffer.from(`${DEMO_EMAIL}:${DEMO_API_KEY}`).toString('base64');
    const pages = await Promise.all(
      ['/metrics', '/'].map(async (path) => (await fetch(`${exporter.url}${path}`)).text()),
    );
    const everything = [exporter.stdout(), exporter.stderr(), ...pages].join('\n');
    expect(exporter.stdout()).toContain('"level":"debug"');
    for (const secret of [DEMO_QSTASH_TOKEN, DEMO_API_KEY, basic]) expect(everything).not.toContain(secret);
    // The database listing's passwords and REST tokens (the simulator's all start so).
    expect(everything).not.toContain('SIMULATED-');
  });

  it('sent the credentials to Upstash, with a User-Agent naming the exporter', () => {
    expect(sim.lastHeaders('flow_control')?.authorization).toBe(`Bearer ${DEMO_QSTASH_TOKEN}`);
    expect(sim.lastHeaders('redis_stats')?.authorization).toMatch(/^Basic /);
    expect(sim.lastHeaders('url_groups')?.['user-agent']).toMatch(/^upstash-exporter\/\d+\.\d+\.\d+/);
    expect(sim.lastPath('redis_stats')).toMatch(/^\/v2\/redis\/stats\//);
    expect(sim.lastPath('flow_control')).toBe('/v2/flowControl/');
  });
});

/** The Redis data series and the health of the management sources: what discovery changes. */
function discoverySeries(body: string): string {
  return `${body
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('upstash_redis_') || /^upstash_up\{source="(databases|redis_stats)"/.test(line),
    )
    .sort()
    .join('\n')}\n`;
}

describe('discovery in the built exporter: databases appear, vanish and are filtered', () => {
  let sim: Simulator;
  let exporter: ExporterProcess;

  beforeAll(async () => {
    sim = await startSimulator({ frozen: true, now: () => FROZEN_NOW });
    const config = writeConfig(`
management:
  - name: main
    url: ${sim.url}
    email: ${DEMO_EMAIL}
    api_key: \${TEST_API_KEY}
    exclude: ["events-.*", "tmp-.*"]
    schedule: "* * * * * *"
`);
    exporter = await startExporter(['--config', config], { TEST_API_KEY: DEMO_API_KEY });
    await waitForStatus(`${exporter.url}/readyz`, 200);
  });

  afterAll(async () => {
    await exporter.stop();
    await sim.stop();
  });

  const scrapeUntil = async (done: (body: string) => boolean): Promise<string> => {
    for (let i = 0; i < 600; i++) {
      const body = await (await fetch(`${exporter.url}/metrics`)).text();
      if (done(body)) return body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the exporter never showed the expected databases');
  };

  it('serves the discovered databases before and after a change as the golden file says', async () => {
    const stats = (id: string): RegExp =>
      new RegExp(`^upstash_redis_keys\\{account="main",database_id="${id}"\\}`, 'm');
    const before = await scrapeUntil((body) => stats('db-demo-suspended').test(body));
    // One database created, three deleted (sessions, suspended, tmp-scratch); events, still listed,
    // stays filtered out.
    sim.setDatabases(['db-demo-cache', 'db-demo-events', 'db-demo-free', 'db-demo-reports']);
    const after = await scrapeUntil(
      (body) => stats('db-demo-reports').test(body) && !body.includes('database_id="db-demo-suspended"'),
    );
    const actual = `# before\n${discoverySeries(before)}# after\n${discoverySeries(after)}`;
    expect(actual).toBe(golden(DISCOVERY_GOLDEN, actual));
    expect(after).not.toMatch(/database_id="db-demo-events"/);
    expect(after).toMatch(/^upstash_redis_databases\{account="main"\} 4$/m);
  });
});
