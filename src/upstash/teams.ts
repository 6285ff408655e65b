import { z } from 'zod';
import { pathSegment, type Target, type UpstashClient } from './client.js';
import { HttpStatusError, RetiredEndpointError } from './errors.js';
import { parseListing, type Listing } from './schema.js';
import { optionalText } from './tolerance.js';

/** A team of the account, as `GET /v2/teams` lists it. */
export interface Team {
  readonly id: string;
  /** '' when the listing gives none. */
  readonly name: string;
}

// The OpenAPI `Team`: only its ID and name are read (`copy_cc` is not).
const team = z.object({ team_id: z.string().min(1), team_name: optionalText });

/** Parses the team listing (a bare array); a team without a string ID, or a repeated one, fails it. */
export function parseTeams(json: unknown, url = 'teams'): Promise<Listing<Team>> {
  return parseListing(json, url, {
    entry: team,
    keyField: 'team_id',
    toEntry: (t) => ({ id: t.team_id, name: t.team_name ?? '' }),
  });
}

/**
 * GET `{url}/v2/teams`: the teams of the account. Upstash's own tools call the endpoint deprecated, so
 * a 404 is told apart: the endpoint may be gone for good (docs/configuration.md, Sources polled only
 * when listed).
 */
export async function fetchTeams(client: UpstashClient, target: Target): Promise<Listing<Team>> {
  const url = `${target.baseUrl}/v2/teams`;
  let json: unknown;
  try {
    json = await client.getJson({ ...target, url });
  } catch (error) {
    if (error instanceof HttpStatusError && error.status === 404)
      throw new RetiredEndpointError('GET', url, 'GET /v2/teams');
    throw error;
  }
  return parseTeams(json, url);
}

// The OpenAPI `TeamMember` carries the member's e-mail (personal data): the schema names only the
// role, and zod drops every other key at parsing, so no e-mail ever reaches an object of ours, a log
// line or an error (whose messages quote no value). A member without a role is a changed API: loud.
const member = z.object({ member_role: z.string() });

/** Parses a team's member list (a bare array) into each member's role, as Upstash spells it. */
export async function parseTeamMembers(json: unknown, url = 'teams/{team_id}'): Promise<string[]> {
  const { entries } = await parseListing(json, url, { entry: member, toEntry: (m) => m.member_role });
  return entries;
}

/** GET `{url}/v2/teams/{team_id}`: the role of each member of one team (never their e-mails). */
export async function fetchTeamRoles(
  client: UpstashClient,
  target: Target,
  teamId: string,
): Promise<string[]> {
  const url = `${target.baseUrl}/v2/teams/${pathSegment(teamId)}`;
  return parseTeamMembers(await client.getJson({ ...target, url }), url);
}
