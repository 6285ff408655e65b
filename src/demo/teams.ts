import { listingBody, PerIdBodies } from './bodies.js';
import { defineEndpoint } from './endpoint.js';

/** Management API `GET /v2/teams`: every team of the account (OpenAPI `Team`). */
export const teamsEndpoint = defineEndpoint({
  name: 'teams',
  credential: 'basic',
  path: '/v2/teams',
  oversizeFrame: ['[{"team_id":"x","team_name":"', '"}]'],
  create: (ctx) =>
    listingBody(ctx, ctx.registries.teams, (team) => ({
      team_id: team.id,
      team_name: team.name,
      copy_cc: true,
    })),
});

/** Management API `GET /v2/teams/{team_id}`: the members of one team (OpenAPI `TeamMember`, e-mails and all). */
export const teamMembersEndpoint = defineEndpoint({
  name: 'team_members',
  credential: 'basic',
  path: '/v2/teams/{id}',
  oversizeFrame: ['[{"member_role":"dev","member_email":"', '"}]'],
  create: (ctx) =>
    new PerIdBodies(ctx, ctx.registries.teams, 'team not found', (team, t) =>
      team.members(t - ctx.origin).map(({ email, role }) => ({
        team_id: team.id,
        team_name: team.name,
        member_email: email,
        member_role: role,
        copy_cc: true,
      })),
    ),
});
