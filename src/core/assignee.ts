/**
 * Who an issue is assigned to: a member (their user id) or a team, written as Sentry writes
 * actors, `team:<id>`. One string keeps the assignee a single value through the services, the
 * stream rows and the pickers; storage keeps the two in their own columns.
 */
export const TEAM_ACTOR_PREFIX = "team:";

export type AssigneeTarget = { kind: "user"; userId: string } | { kind: "team"; teamId: number };

export function teamActor(teamId: number): string {
  return `${TEAM_ACTOR_PREFIX}${teamId}`;
}

/** The target an assignee key names; a malformed team id yields undefined. */
export function parseAssignee(key: string): AssigneeTarget | undefined {
  if (!key.startsWith(TEAM_ACTOR_PREFIX)) return { kind: "user", userId: key };
  const id = Number(key.slice(TEAM_ACTOR_PREFIX.length));
  return Number.isSafeInteger(id) && id > 0 ? { kind: "team", teamId: id } : undefined;
}

/** The assignee key of a row's two columns (a team only when no member is set). */
export function assigneeKey(userId: string | null, teamId: number | null): string | null {
  if (userId !== null) return userId;
  return teamId === null ? null : teamActor(Number(teamId));
}

/** A team as an assignee (the shape of a member in pickers and profiles): shown as `#slug`. */
export function teamRef(team: { id: number; slug: string }): { id: string; email: string; name: string } {
  return { id: teamActor(team.id), email: "", name: `#${team.slug}` };
}
