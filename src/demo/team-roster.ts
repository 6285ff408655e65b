import { DEMO_MEMBER_EMAILS } from './account-safety.js';

/** A team of the simulated account, and its members' roles at time t (ms since the simulator started). */
export interface DemoTeam {
  readonly id: string;
  readonly name: string;
  /** The role of each member at time t, in the order of {@link DEMO_MEMBER_EMAILS} given to them. */
  readonly members: (sinceStart: number) => readonly { readonly email: string; readonly role: string }[];
}

/** How often the platform team's second admin comes and goes (clock ms). */
export const TEAM_CHANGE_MS = 60_000;

const [ownerPlatform, adminOne, adminTwo, devOne, devTwo, financeOne, ownerData] = DEMO_MEMBER_EMAILS;

/** The demo's teams: one whose admins change (a second admin every other period), one steady. */
export const DEMO_TEAMS: readonly DemoTeam[] = [
  {
    id: '95849b27-40d0-4532-8695-d2028847f823',
    name: 'platform',
    members: (sinceStart) => [
      { email: ownerPlatform, role: 'owner' },
      { email: adminOne, role: 'admin' },
      ...(Math.floor(sinceStart / TEAM_CHANGE_MS) % 2 === 1 ? [{ email: adminTwo, role: 'admin' }] : []),
      { email: devOne, role: 'dev' },
      { email: devTwo, role: 'dev' },
      { email: financeOne, role: 'finance' },
    ],
  },
  {
    id: '3423cb72-e50d-43ec-a9c0-f0f359941223',
    name: 'data',
    members: () => [
      { email: ownerData, role: 'owner' },
      { email: devTwo, role: 'dev' },
    ],
  },
];
