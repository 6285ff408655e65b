import { describe, expect, test } from 'vitest';
import { summarizeConfig } from '../../src/config/summary.js';
import {
  DEMO_EGRESS_RANGES,
  DEMO_PERSONAL_VALUES,
  DEMO_TEAMS,
  type DemoAuditEvent,
} from '../../src/demo/simulator.js';
import { valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { scrapeUntil, useHarness } from '../helpers/harness.js';

// The account's safety (docs/metrics.md, The account's safety) against the real exporter (createApp) polling
// the simulator over HTTP: the audit log counted once from the start, its labels capped, the body cap named
// in the log; teams by role and max_teams; QStash's egress ranges as they move; and no personal value
// anywhere the exporter speaks.

const FROZEN_NOW = Date.UTC(2026, 10, 1, 12, 0, 0);
const SAFETY = ['audit_logs', 'teams', 'qstash_egress_ips'] as const;

const harness = useHarness({
  intervalSeconds: 1,
  qstashSources: [],
  managementSources: ['databases', ...SAFETY],
  sim: { frozen: true, now: () => FROZEN_NOW },
});

const up = (samples: ParsedSample[], source: string) =>
  valueOf(samples, 'upstash_up', { source, account: 'main' });

/** Polls of a source so far (successful or not). */
const polls = (samples: ParsedSample[], source: string) =>
  valueOf(samples, 'upstash_exporter_polls_total', { source, account: 'main' }) ?? 0;

const audit = (e: Partial<DemoAuditEvent> & { log_id: string; timestamp: number }): DemoAuditEvent => ({
  action_string: 'Update Database',
  source: 'CONSOLE',
  ...e,
});

describe('audit_logs', () => {
  test('history is not counted; new events once each, by action and via; the key’s name is dropped', async () => {
    const start = Math.floor(Date.now() / 1000);
    const h = await harness({ managementSources: ['audit_logs'] });
    h.sim.setAuditLog([audit({ log_id: 'old', timestamp: start - 3600, action_string: 'Delete Database' })]);
    let samples = await scrapeUntil(
      h,
      'the history read',
      (s) => valueOf(s, 'upstash_audit_last_event_timestamp_seconds', { account: 'main' }) === start - 3600,
    );
    expect(samples.filter((s) => s.name === 'upstash_audit_events_total')).toEqual([]);
    const state = { account: 'main', state: 'all' };
    expect(valueOf(samples, 'upstash_audit_log_scan_complete', state)).toBe(1);
    expect(valueOf(samples, 'upstash_audit_log_unread_seconds_total', state)).toBe(0);
    const watermark = valueOf(samples, 'upstash_audit_log_watermark_timestamp_seconds', state)!;
    // W starts at the second the entry began to be polled, in Unix seconds.
    expect(watermark).toBeGreaterThanOrEqual(start);
    expect(watermark).toBeLessThan(start + 600);

    const t = watermark + 5;
    h.sim.setAuditLog([
      audit({
        log_id: 'n3',
        timestamp: t,
        action_string: 'Delete Database',
        source: 'API_KEY - deploy-bot-key-91',
      }),
      audit({
        log_id: 'n2',
        timestamp: t,
        action_string: 'Delete Database',
        source: 'API_KEY - terraform-key-33',
      }),
      audit({ log_id: 'n1', timestamp: t - 1, source: 'Some New Kind' }),
      audit({ log_id: 'old', timestamp: start - 3600, action_string: 'Delete Database' }),
    ]);
    samples = await scrapeUntil(
      h,
      'the new events counted',
      (s) => valueOf(s, 'upstash_audit_last_event_timestamp_seconds', { account: 'main' }) === t,
    );
    // Polled again and again, the same body counts nothing more.
    const after = polls(samples, 'audit_logs');
    samples = await scrapeUntil(h, 'three more polls', (s) => polls(s, 'audit_logs') >= after + 3);
    const events = samples.filter((s) => s.name === 'upstash_audit_events_total');
    expect(events.map((s) => [s.labels.action, s.labels.via, s.value])).toEqual([
      ['Delete Database', 'API_KEY', 2],
      ['Update Database', 'Some New Kind', 1],
    ]);
    expect(valueOf(samples, 'upstash_audit_log_watermark_timestamp_seconds', state)).toBe(t);
    expect(h.sim.lastPath('audit_logs')).toBe('/auditlogs');
  });

  test('label sets beyond max_event_series go to other, each event counted as truncated', async () => {
    const h = await harness({ managementSources: ['audit_logs'], limits: { maxEventSeries: 1 } });
    let samples = await scrapeUntil(h, 'the first poll', (s) => up(s, 'audit_logs') === 1);
    const t = valueOf(samples, 'upstash_audit_log_watermark_timestamp_seconds', { account: 'main' })! + 1;
    h.sim.setAuditLog([
      audit({ log_id: 'a', timestamp: t, action_string: 'Create Database' }),
      audit({ log_id: 'b', timestamp: t, action_string: 'Delete Database' }),
      audit({ log_id: 'c', timestamp: t, action_string: 'Reset Password' }),
    ]);
    samples = await scrapeUntil(h, 'the events counted', (s) =>
      s.some((x) => x.name === 'upstash_audit_events_total' && x.labels.action === 'other'),
    );
    const events = samples.filter((s) => s.name === 'upstash_audit_events_total');
    expect(events).toHaveLength(2);
    expect(events.reduce((sum, s) => sum + s.value, 0)).toBe(3);
    expect(valueOf(samples, 'upstash_audit_events_total', { action: 'other', via: 'other' })).toBe(2);
    expect(
      valueOf(samples, 'upstash_exporter_label_values_truncated_total', {
        source: 'audit_logs',
        account: 'main',
      }),
    ).toBe(2);
  });

  test('a body over http.max_response_size fails the poll, with a log line naming max_response_size', async () => {
    const h = await harness({ managementSources: ['audit_logs'], http: { maxBodyBytes: 1024 } });
    await scrapeUntil(
      h,
      'the audit log refused',
      (s) =>
        (valueOf(s, 'upstash_exporter_poll_failures_total', {
          source: 'audit_logs',
          account: 'main',
          reason: 'invalid_response',
        }) ?? 0) > 0,
    );
    expect(h.logs.some((line) => line.includes('poll failed') && line.includes('max_response_size'))).toBe(
      true,
    );
  });
});

describe('teams and QStash egress IPs', () => {
  test('members counted by role, the four documented roles always; max_teams keeps the first by name', async () => {
    const h = await harness({ managementSources: ['teams'] });
    let samples = await scrapeUntil(h, 'teams polled', (s) => up(s, 'teams') === 1);
    const [platform, data] = DEMO_TEAMS;
    const members = (team: typeof platform, role: string) =>
      valueOf(samples, 'upstash_team_members', {
        account: 'main',
        team_id: team!.id,
        team_name: team!.name,
        role,
      });
    // The simulator's clock stands at its start: the platform team has one admin then.
    expect(['owner', 'admin', 'dev', 'finance'].map((role) => members(platform, role))).toEqual([1, 1, 2, 1]);
    expect(['owner', 'admin', 'dev', 'finance'].map((role) => members(data, role))).toEqual([1, 0, 1, 0]);
    expect(h.sim.lastPath('team_members')).toMatch(/^\/v2\/teams\/[0-9a-f-]+$/);
    await h.stop();

    const capped = await harness({ managementSources: ['teams'], limits: { maxTeams: 1 } });
    samples = await scrapeUntil(capped, 'teams polled', (s) => up(s, 'teams') === 1);
    const ids = new Set(
      samples.filter((s) => s.name === 'upstash_team_members').map((s) => s.labels.team_name),
    );
    expect([...ids]).toEqual(['data']);
    expect(
      valueOf(samples, 'upstash_exporter_label_values_truncated_total', { source: 'teams', account: 'main' }),
    ).toBeGreaterThanOrEqual(1);
  });

  test('a fault on a team’s members fails the teams source (its listing answered), under its reason', async () => {
    const h = await harness({ managementSources: ['teams'] });
    await scrapeUntil(h, 'teams polled', (s) => up(s, 'teams') === 1);
    h.sim.setFault('team_members', { kind: 'status', status: 500 });
    const samples = await scrapeUntil(h, 'the failure', (s) => up(s, 'teams') === 0);
    expect(
      valueOf(samples, 'upstash_exporter_poll_failures_total', {
        source: 'teams',
        account: 'main',
        reason: 'server_error',
      }),
    ).toBeGreaterThan(0);
    h.sim.setFault('team_members', null);
    await scrapeUntil(h, 'the recovery', (s) => up(s, 'teams') === 1);
  });

  test('a 404 from /v2/teams counts as not_found at every poll and says once that it may be retired', async () => {
    const h = await harness({ managementSources: ['teams'] });
    h.sim.setFault('teams', { kind: 'status', status: 404 });
    const samples = await scrapeUntil(h, 'three failed polls', (s) => polls(s, 'teams') >= 3);
    expect(up(samples, 'teams')).toBe(0);
    const failures = { source: 'teams', account: 'main', reason: 'not_found' };
    expect(valueOf(samples, 'upstash_exporter_poll_failures_total', failures)).toBe(polls(samples, 'teams'));
    const failed = h.logs.filter((line) => line.includes('"msg":"poll failed"') && line.includes('"teams"'));
    expect(failed.length).toBeGreaterThanOrEqual(3);
    const retired = h.logs.filter((line) => line.includes('Upstash may have retired it'));
    expect(retired).toHaveLength(1);
    expect(JSON.parse(retired[0]!)).toMatchObject({
      level: 'warn',
      source: 'teams',
      endpoint: 'GET /v2/teams',
    });
  });

  test('the egress ranges: how many, one info series each, and a change seen at the next poll', async () => {
    const h = await harness({ managementSources: ['qstash_egress_ips'] });
    let samples = await scrapeUntil(h, 'egress polled', (s) => up(s, 'qstash_egress_ips') === 1);
    expect(valueOf(samples, 'upstash_qstash_egress_ip_ranges', { account: 'main' })).toBe(
      DEMO_EGRESS_RANGES.length + 1,
    );
    for (const cidr of DEMO_EGRESS_RANGES)
      expect(valueOf(samples, 'upstash_qstash_egress_ip_range_info', { account: 'main', cidr })).toBe(1);
    expect(h.sim.lastHeaders('qstash_egress_ips')?.authorization).toMatch(/^Basic /);

    h.sim.setEgressRanges(['3.125.136.186/32', '63.178.1.0/28']);
    samples = await scrapeUntil(
      h,
      'the change',
      (s) => valueOf(s, 'upstash_qstash_egress_ip_range_info', { cidr: '63.178.1.0/28' }) === 1,
    );
    expect(valueOf(samples, 'upstash_qstash_egress_ip_ranges', { account: 'main' })).toBe(2);
    expect(samples.filter((s) => s.name === 'upstash_qstash_egress_ip_range_info')).toHaveLength(2);

    // At most 100 info series; the count says them all, the rest are counted as truncated.
    h.sim.setEgressRanges(Array.from({ length: 130 }, (_, k) => `10.0.${k}.0/24`));
    samples = await scrapeUntil(
      h,
      'the long list',
      (s) => valueOf(s, 'upstash_qstash_egress_ip_ranges', { account: 'main' }) === 130,
    );
    expect(samples.filter((s) => s.name === 'upstash_qstash_egress_ip_range_info')).toHaveLength(100);
  });

  test('a string that is not a CIDR refuses the list: invalid_response, and no cidr label made of it', async () => {
    const h = await harness({ managementSources: ['qstash_egress_ips'] });
    await scrapeUntil(h, 'egress polled', (s) => up(s, 'qstash_egress_ips') === 1);
    const invalid = (s: ParsedSample[]) =>
      valueOf(s, 'upstash_exporter_poll_failures_total', {
        source: 'qstash_egress_ips',
        account: 'main',
        reason: 'invalid_response',
      }) ?? 0;
    for (const bad of ['....', '::::', 'cafe', '10.0.0.1/999', '999.999.999.999/32']) {
      const before = invalid((await h.scrape()).samples);
      h.sim.setEgressRanges(['3.125.136.186/32', bad]);
      const samples = await scrapeUntil(h, `${bad} refused`, (s) => invalid(s) > before);
      expect(up(samples, 'qstash_egress_ips')).toBe(0);
      expect(samples.some((s) => s.labels.cidr === bad)).toBe(false);
    }
    // A list of CIDRs is read again.
    h.sim.setEgressRanges(['2001:db8::/32', '10.0.0.0/8']);
    const samples = await scrapeUntil(h, 'the valid list', (s) => up(s, 'qstash_egress_ips') === 1);
    expect(valueOf(samples, 'upstash_qstash_egress_ip_ranges', { account: 'main' })).toBe(2);
    expect(valueOf(samples, 'upstash_qstash_egress_ip_range_info', { cidr: '2001:db8::/32' })).toBe(1);
  });

  test('one range, one spelling: every spelling of a range is one cidr series, in canonical text', async () => {
    const h = await harness({ managementSources: ['qstash_egress_ips'] });
    await scrapeUntil(h, 'egress polled', (s) => up(s, 'qstash_egress_ips') === 1);
    const cidrs = (s: ParsedSample[]) =>
      s
        .filter((sample) => sample.name === 'upstash_qstash_egress_ip_range_info')
        .map((sample) => sample.labels.cidr)
        .sort();
    // Two ranges, each in several spellings Upstash could send; and a change of spelling alone.
    h.sim.setEgressRanges(['2001:DB8::/32', '2001:0db8::/32', '0:0:0:0:0:0:0:1/128', '::1/128']);
    let samples = await scrapeUntil(h, 'the spelled list', (s) => !cidrs(s).includes(DEMO_EGRESS_RANGES[0]));
    expect(cidrs(samples)).toEqual(['2001:db8::/32', '::1/128']);
    expect(valueOf(samples, 'upstash_qstash_egress_ip_ranges', { account: 'main' })).toBe(2);
    h.sim.setEgressRanges([
      '2001:db8:0:0:1::1/128',
      '2001:0DB8:0000:0000:0001:0000:0000:0001/128',
      '::FFFF:10.0.0.1/128',
    ]);
    samples = await scrapeUntil(h, 'the respelled list', (s) => !cidrs(s).includes('::1/128'));
    expect(cidrs(samples)).toEqual(['2001:db8::1:0:0:1/128', '::ffff:10.0.0.1/128']);
    expect(valueOf(samples, 'upstash_qstash_egress_ip_ranges', { account: 'main' })).toBe(2);
  });
});

describe('personal data', () => {
  test('no actor, e-mail, member e-mail, entity name, key name or IP reaches /metrics, the logs, the landing page or --check-config', async () => {
    const h = await harness({ logLevel: 'debug' });
    // Every source polled successfully at least twice, the demo's own bodies served.
    await scrapeUntil(h, 'every source polled', (s) =>
      ['databases', ...SAFETY].every((source) => up(s, source) === 1 && polls(s, source) >= 2),
    );
    // And once failing, so that the failure paths' log lines are scanned too.
    h.sim.setFault('audit_logs', {
      kind: 'body',
      body: '[{"log_id": 1, "actor": "ada.lovelace@people.example"}]',
    });
    await scrapeUntil(
      h,
      'a failed audit poll',
      (s) =>
        (valueOf(s, 'upstash_exporter_poll_failures_total', {
          source: 'audit_logs',
          account: 'main',
          reason: 'invalid_response',
        }) ?? 0) > 0,
    );
    const places = {
      metrics: (await h.scrape()).text,
      landing: (await h.get('/')).body,
      logs: h.logs.join('\n'),
      checkConfig: summarizeConfig(h.config),
    };
    expect(DEMO_PERSONAL_VALUES.length).toBeGreaterThan(10);
    for (const [where, text] of Object.entries(places))
      for (const value of DEMO_PERSONAL_VALUES)
        expect(text.includes(value), `${value} in ${where}`).toBe(false);
    // The scan can fail: the simulator did serve them.
    const authorization = `Basic ${Buffer.from(`${h.config.management[0]!.email}:${h.config.management[0]!.apiKey.reveal()}`).toString('base64')}`;
    h.sim.setFault('audit_logs', null);
    const served = await Promise.all(
      ['/auditlogs', ...DEMO_TEAMS.map((team) => `/v2/teams/${team.id}`)].map(async (path) =>
        (await fetch(`${h.sim.url}${path}`, { headers: { authorization } })).text(),
      ),
    );
    // (The platform team's second admin joins only after TEAM_CHANGE_MS; the clock stands still here.)
    for (const value of DEMO_PERSONAL_VALUES.filter((v) => v !== 'admin.two@people.example'))
      expect(served.join('\n')).toContain(value);
  });
});
