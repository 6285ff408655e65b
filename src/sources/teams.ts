import { gauge } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { fetchTeamRoles, fetchTeams, type Team } from '../upstash/teams.js';
import { counted, polled, type SourceKind } from './source.js';

const POLLED = polled('teams');

/**
 * The roles Upstash documents (`member_role`), always exported, 0 when no member has it: a team whose
 * last admin left shows 0, not nothing, so that a change of owners or admins is a `changes()` away.
 * A role of another spelling is exported as it comes, while a member has it.
 */
export const TEAM_ROLES = ['owner', 'admin', 'dev', 'finance'] as const;

const MEMBERS = gauge(
  'upstash_team_members',
  `Members of a team, by role (member_role: owner, admin, dev, finance, as Upstash spells them; count). At most limits.max_teams teams, the first by name. ${POLLED}`,
);

/** The first `max` teams by name (then ID), so the cut is stable from poll to poll. */
export function firstTeams(teams: readonly Team[], max: number): Team[] {
  return [...teams].sort((a, b) => compare(a.name, b.name) || compare(a.id, b.id)).slice(0, max);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The samples of one team: its members counted by role. */
export function teamSamples(account: string, team: Team, roles: readonly string[]): Sample[] {
  const counts = new Map<string, number>(TEAM_ROLES.map((role) => [role, 0]));
  for (const role of roles) counts.set(role, (counts.get(role) ?? 0) + 1);
  return [...counts].map(([role, count]) =>
    sample(
      MEMBERS,
      [
        ['account', account],
        ['team_id', team.id],
        ['team_name', team.name],
        ['role', role],
      ],
      count,
    ),
  );
}

/**
 * The account's teams and their members by role, on `audit_interval` (docs/metrics.md, The account's safety):
 * the listing, then one request per team, at most `limits.max_teams`. Member e-mails are dropped at parsing.
 */
export const teams: SourceKind<'teams'> = {
  name: 'teams',
  per: 'account',
  metrics: [MEMBERS],
  async poll({ client, account, limits, signal, deadline }) {
    const target = { ...account, signal, deadline };
    const { entries, rejected } = await fetchTeams(client, target);
    const kept = firstTeams(entries, limits.maxTeams);
    const samples: Sample[] = [];
    // One team after another: the client's concurrency is shared with every other source, and the
    // schedule is minutes long.
    for (const team of kept)
      samples.push(...teamSamples(account.name, team, await fetchTeamRoles(client, target, team.id)));
    const left = entries.length - kept.length;
    return {
      samples,
      rejectedFields: rejected,
      labelValuesDropped: left,
      ...(left > 0 && {
        warnings: [
          `${counted(left, 'team')} not read: max_teams (${limits.maxTeams}) reached, the first by name are`,
        ],
      }),
    };
  },
};
