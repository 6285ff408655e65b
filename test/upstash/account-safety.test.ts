import { afterEach, describe, expect, test } from 'vitest';
import { fetchAuditLogs, parseAuditLogs, viaOf } from '../../src/upstash/audit-logs.js';
import { UpstashClient } from '../../src/upstash/client.js';
import {
  canonicalCidr,
  fetchQstashEgressIps,
  isCidr,
  parseQstashEgressIps,
} from '../../src/upstash/qstash-egress-ips.js';
import { fetchTeamRoles, fetchTeams, parseTeamMembers, parseTeams } from '../../src/upstash/teams.js';
import { invalidAsync } from '../helpers/invalid.js';
import { startLocalServer, type LocalServer } from './local-server.js';

// The reference's examples (upstash-developer-api.openapi.yml: AuditLog, Team, TeamMember,
// /qstash/ipv4), every field, personal data included.
const AUDIT_EVENT = {
  log_id: 'ab9744ed-f51c-4z58-a3cj-e3bs756154du',
  customer_id: 'customer.one@people.example',
  actor: 'actor.one@people.example',
  timestamp: 1764587058,
  action: 13,
  action_string: 'Delete Team',
  source: 'API_KEY - system_tests',
  entity: 'entity-test-team-1',
  secondary_entity: 'NA',
  third_entity: 'entity-third-2',
  readable_format: 'actor.one@people.example deleted entity-test-team-1',
  ip: '192.0.2.44',
  ttl: 1780311858,
  reason: 'because-reason-text',
  notes: 'private-notes-text',
};
const PERSONAL = [
  'customer.one@people.example',
  'actor.one@people.example',
  'entity-test-team-1',
  'entity-third-2',
  '192.0.2.44',
  'system_tests',
  'because-reason-text',
  'private-notes-text',
];
const MEMBER = {
  team_id: '3423cb72-e50d-43ec-a9c0-f0f359941223',
  team_name: 'test_team_name_2',
  member_email: 'member.one@people.example',
  member_role: 'dev',
  copy_cc: true,
};

const servers: LocalServer[] = [];
const clients: UpstashClient[] = [];
afterEach(async () => {
  await Promise.all([...servers.splice(0).map((s) => s.stop()), ...clients.splice(0).map((c) => c.close())]);
});

/** A server answering every request with `body` (JSON text), and a client with body cap `cap`. */
async function serve(body: string, cap?: number) {
  const server = await startLocalServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  });
  servers.push(server);
  const client = new UpstashClient({
    timeoutMs: 5000,
    retries: 0,
    concurrency: 2,
    userAgent: 'test',
    ...(cap !== undefined && { maxBodyBytes: cap }),
  });
  clients.push(client);
  return { server, client };
}

const CREDENTIALS = { api: 'management', email: 'ops@example.com', apiKey: { reveal: () => 'k' } } as const;

describe('audit log', () => {
  test('the reference example: the four fields read, and no personal value in what is kept', async () => {
    const parsed = await parseAuditLogs([AUDIT_EVENT]);
    expect(parsed).toEqual({
      events: [{ id: AUDIT_EVENT.log_id, time: 1764587058, action: 'Delete Team', via: 'API_KEY' }],
      rejected: [],
    });
    const kept = JSON.stringify(parsed);
    for (const value of PERSONAL) expect(kept).not.toContain(value);
  });

  test('via: the kind of source up to the first " - "; any other spelling kept as it comes', () => {
    expect(viaOf('API_KEY - system_tests')).toBe('API_KEY');
    expect(viaOf('API_KEY - a - b')).toBe('API_KEY');
    expect(viaOf('CONSOLE')).toBe('CONSOLE');
    expect(viaOf('Some New Kind')).toBe('Some New Kind');
    expect(viaOf('')).toBe('');
  });

  test('time and identity are strict; the action and the source are optional', async () => {
    expect((await parseAuditLogs([{ log_id: 'a', timestamp: 5 }])).events).toEqual([
      { id: 'a', time: 5, action: '', via: '' },
    ]);
    const noTime = await invalidAsync(() => parseAuditLogs([{ log_id: 'a', actor: 'x@people.example' }]));
    expect(noTime.message).toContain('[0].timestamp');
    expect(noTime.message).not.toContain('people.example');
    await invalidAsync(() => parseAuditLogs([{ timestamp: 5 }]));
    await invalidAsync(() => parseAuditLogs({ logs: [] }));
    const rejected = await parseAuditLogs([{ log_id: 'a', timestamp: 5, action_string: 7 }]);
    expect(rejected.rejected).toEqual(['action_string']);
  });

  test.each([
    ['a bare origin', '', '/auditlogs'],
    ['a base with a path', '/upstash-proxy', '/upstash-proxy/auditlogs'],
  ])('GET {management url}/auditlogs, no /v2: %s', async (_name, prefix, path) => {
    const { server, client } = await serve(JSON.stringify([AUDIT_EVENT]));
    const { events } = await fetchAuditLogs(client, {
      baseUrl: `${server.url}${prefix}`,
      credentials: CREDENTIALS,
    });
    expect(events).toHaveLength(1);
    expect(server.requests.map((r) => r.path)).toEqual([path]);
    expect(server.requests[0]?.headers.authorization).toMatch(/^Basic /);
  });

  // The worst case: the largest cap there is (16 MiB, about 45,000 events of the reference's size, a
  // busy account's year), its body parsed whole, its personal fields dropped.
  test('a body at the largest cap is read whole; one byte more fails naming http.max_response_size', async () => {
    const cap = 16 * 1024 * 1024;
    const one = JSON.stringify(AUDIT_EVENT);
    // As many events as fit, then spaces (JSON whitespace) up to exactly the cap.
    const count = Math.floor((cap - 2) / (one.length + 1));
    const events = Array.from({ length: count }, (_, k) => ({ ...AUDIT_EVENT, log_id: `e${k}` }));
    let body = JSON.stringify(events);
    body = `${body.slice(0, -1)}${' '.repeat(cap - body.length)}]`;
    expect(Buffer.byteLength(body)).toBe(cap);
    const atCap = await serve(body, cap);
    const target = { baseUrl: atCap.server.url, credentials: CREDENTIALS };
    const read = await fetchAuditLogs(atCap.client, target);
    expect(read.events).toHaveLength(count);
    expect(read.events[count - 1]).toEqual({
      id: `e${count - 1}`,
      time: 1764587058,
      action: 'Delete Team',
      via: 'API_KEY',
    });

    const over = await serve(`${body} `, cap);
    const error = await invalidAsync(() =>
      fetchAuditLogs(over.client, { baseUrl: over.server.url, credentials: CREDENTIALS }),
    );
    expect(error.message).toContain('max_response_size');
    expect(error.message).not.toContain('people.example');
  });
});

describe('teams', () => {
  test('the listing: ID and name; the members: roles only, never an e-mail', async () => {
    expect(
      (await parseTeams([{ team_id: '95849b27', team_name: 'test_team_name', copy_cc: true }])).entries,
    ).toEqual([{ id: '95849b27', name: 'test_team_name' }]);
    const roles = await parseTeamMembers([
      MEMBER,
      { ...MEMBER, member_email: 'b@people.example', member_role: 'owner' },
    ]);
    expect(roles).toEqual(['dev', 'owner']);
    expect(JSON.stringify(roles)).not.toContain('people.example');
  });

  test('a team without an ID, a repeated ID, a member without a role: invalid, never quoting a value', async () => {
    await invalidAsync(() => parseTeams([{ team_name: 'x' }]));
    await invalidAsync(() => parseTeams([{ team_id: 'a' }, { team_id: 'a' }]));
    const error = await invalidAsync(() => parseTeamMembers([{ member_email: 'c@people.example' }]));
    expect(error.message).not.toContain('people.example');
  });

  test('GET /v2/teams, then /v2/teams/{team_id} with the ID as one path segment', async () => {
    const { server, client } = await serve(JSON.stringify([MEMBER]));
    const target = { baseUrl: `${server.url}/base`, credentials: CREDENTIALS };
    // (A member carries its team's ID and name: read as a listing, it is one team.)
    expect((await fetchTeams(client, target)).entries).toEqual([
      { id: MEMBER.team_id, name: MEMBER.team_name },
    ]);
    expect(await fetchTeamRoles(client, target, 'a/b')).toEqual(['dev']);
    expect(server.requests.map((r) => r.path)).toEqual(['/base/v2/teams', '/base/v2/teams/a%2Fb']);
  });
});

describe('QStash egress IPs', () => {
  test('the reference example, without repeats; anything but a range is invalid', async () => {
    expect(await parseQstashEgressIps(['3.125.136.186/32', '18.198.95.233/32', '3.125.136.186/32'])).toEqual([
      '3.125.136.186/32',
      '18.198.95.233/32',
    ]);
    await invalidAsync(() => parseQstashEgressIps([1]));
    await invalidAsync(() => parseQstashEgressIps(['not a range']));
    await invalidAsync(() => parseQstashEgressIps({ ips: [] }));
  });

  test('a range is a CIDR in canonical text: an IPv4 or IPv6 address and a decimal prefix in bounds', async () => {
    for (const cidr of [
      '3.125.136.186/32',
      '0.0.0.0/0',
      '10.0.0.0/8',
      '::/0',
      '2001:db8::/32',
      'FE80::1/128',
      '::ffff:1.2.3.4/96',
    ])
      expect(isCidr(cidr), cidr).toBe(true);
    for (const text of [
      '....',
      '::::',
      'cafe',
      '10.0.0.1/999',
      '999.999.999.999/32',
      '10.0.0.1/33',
      '2001:db8::/129',
      '10.0.0.1/08',
      '10.0.0.1/',
      '/32',
      '10.0.0.1',
      '010.0.0.1/32',
      '1.2.3/24',
      'fe80::1%eth0/64',
      '10.0.0.1/32/32',
      '10.0.0.1/+8',
      ' 10.0.0.1/32',
    ])
      expect(isCidr(text), text).toBe(false);
    // One bad range refuses the list, as a word does.
    for (const bad of ['....', '::::', 'cafe', '10.0.0.1/999', '999.999.999.999/32'])
      await invalidAsync(() => parseQstashEgressIps(['3.125.136.186/32', bad]));
  });

  test('a range comes back in canonical text: IPv6 as RFC 5952 writes it, the address kept whole', () => {
    for (const [text, canonical] of [
      ['3.125.136.186/32', '3.125.136.186/32'],
      ['10.0.0.1/8', '10.0.0.1/8'],
      ['2001:DB8::/32', '2001:db8::/32'],
      ['2001:0db8::/32', '2001:db8::/32'],
      ['2001:0DB8:0000:0000:0000:0000:0000:0000/32', '2001:db8::/32'],
      ['0:0:0:0:0:0:0:1/128', '::1/128'],
      ['0:0:0:0:0:0:0:0/0', '::/0'],
      ['2001:db8:0:0:1::1/128', '2001:db8::1:0:0:1/128'],
      ['2001:db8:0:1:1:1:1:1/128', '2001:db8:0:1:1:1:1:1/128'],
      ['2001:db8::1:1:1:1:1/128', '2001:db8:0:1:1:1:1:1/128'],
      ['1:0:0:2:0:0:0:3/128', '1:0:0:2::3/128'],
      ['fe80:0:0:0:0:0:0:0/10', 'fe80::/10'],
      ['::FFFF:1.2.3.4/128', '::ffff:1.2.3.4/128'],
      ['0:0:0:0:0:ffff:102:304/96', '::ffff:1.2.3.4/96'],
      ['::1.2.3.4/128', '::102:304/128'],
      ['1:2:3:4:5:6:1.2.3.4/128', '1:2:3:4:5:6:102:304/128'],
    ] as const)
      expect(canonicalCidr(text), text).toBe(canonical);
  });

  test('the list says each range once, in its canonical spelling, whatever spellings came', async () => {
    expect(
      await parseQstashEgressIps(['2001:DB8::/32', '10.0.0.0/8', '2001:0db8::/32', '2001:db8::/32']),
    ).toEqual(['2001:db8::/32', '10.0.0.0/8']);
  });

  test('GET {url}/v2/qstash/ipv4 with the entry’s credentials (the reference asks none)', async () => {
    const { server, client } = await serve('["3.125.136.186/32"]');
    expect(await fetchQstashEgressIps(client, { baseUrl: server.url, credentials: CREDENTIALS })).toEqual([
      '3.125.136.186/32',
    ]);
    expect(server.requests[0]?.path).toBe('/v2/qstash/ipv4');
    expect(server.requests[0]?.headers.authorization).toMatch(/^Basic /);
  });
});
