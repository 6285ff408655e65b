import { describe, expect, test } from 'vitest';
import {
  AUDIT_STEP_MS,
  DEMO_EGRESS_RANGES,
  DEMO_TEAMS,
  EGRESS_CHANGE_MS,
  TEAM_CHANGE_MS,
} from '../../src/demo/simulator.js';
import { basic, simulatorsStoppedAfterEach } from './helpers.js';

// The simulated account-safety endpoints: the reference's shapes (every field of AuditLog and
// TeamMember, a bare array of CIDRs), auth on every path, and values that move with the clock.

const start = simulatorsStoppedAfterEach();
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);

async function get(url: string, path: string, headers = basic()): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${path}`, { headers });
  return { status: response.status, body: await response.json() };
}

describe('account safety endpoints', () => {
  test('GET /auditlogs: every AuditLog field, newest first, a deletion every six events; no /v2 path', async () => {
    let now = T0;
    const sim = await start({ now: () => now });
    now = T0 + 1500;
    const history = (await get(sim.url, '/auditlogs')).body as Record<string, unknown>[];
    // A month of history, and the opening's event at the second of the first read (opening.ts).
    expect(history).toHaveLength(31);
    expect(history[0]).toMatchObject({
      log_id: 'demo-audit-e0',
      timestamp: T0 / 1000 + 1,
      action_string: 'Create Database',
    });
    expect(Object.keys(history[0]!).sort()).toEqual(
      [
        'log_id',
        'customer_id',
        'actor',
        'timestamp',
        'action',
        'action_string',
        'source',
        'entity',
        'secondary_entity',
        'third_entity',
        'readable_format',
        'ip',
        'ttl',
        'reason',
        'notes',
      ].sort(),
    );
    now = T0 + 12 * AUDIT_STEP_MS;
    const log = (await get(sim.url, '/auditlogs')).body as {
      timestamp: number;
      action_string: string;
      source: string;
    }[];
    expect(log).toHaveLength(43);
    expect(log[0]!.timestamp).toBe(T0 / 1000 + (12 * AUDIT_STEP_MS) / 1000);
    const times = log.map((e) => e.timestamp);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(log.slice(0, 12).filter((e) => e.action_string === 'Delete Database')).toHaveLength(2);
    expect(new Set(log.map((e) => e.source.split(' - ')[0]))).toEqual(new Set(['CONSOLE', 'API_KEY']));
    expect((await get(sim.url, '/v2/auditlogs')).status).toBe(404);
    expect((await get(sim.url, '/auditlogs', {})).status).toBe(401);
  });

  test('teams: the listing and each team’s members (TeamMember); the platform team gains and loses an admin', async () => {
    let now = T0;
    const sim = await start({ now: () => now });
    expect((await get(sim.url, '/v2/teams')).body).toEqual(
      DEMO_TEAMS.map((t) => ({ team_id: t.id, team_name: t.name, copy_cc: true })),
    );
    const admins = async () =>
      ((await get(sim.url, `/v2/teams/${DEMO_TEAMS[0]!.id}`)).body as { member_role: string }[]).filter(
        (m) => m.member_role === 'admin',
      ).length;
    expect(await admins()).toBe(1);
    now = T0 + TEAM_CHANGE_MS;
    expect(await admins()).toBe(2);
    now = T0 + 2 * TEAM_CHANGE_MS;
    expect(await admins()).toBe(1);
    expect((await get(sim.url, '/v2/teams/no-such-team')).status).toBe(404);
  });

  test('GET /v2/qstash/ipv4: a bare array of CIDRs, one of which moves', async () => {
    let now = T0;
    const sim = await start({ now: () => now });
    const before = (await get(sim.url, '/v2/qstash/ipv4')).body as string[];
    expect(before.slice(0, DEMO_EGRESS_RANGES.length)).toEqual([...DEMO_EGRESS_RANGES]);
    now = T0 + EGRESS_CHANGE_MS;
    const after = (await get(sim.url, '/v2/qstash/ipv4')).body as string[];
    expect(after).toHaveLength(before.length);
    expect(after).not.toEqual(before);
  });
});
