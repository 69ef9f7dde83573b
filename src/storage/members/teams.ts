import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface TeamRow {
  id: number;
  slug: string;
  name: string;
  createdAt: number;
  memberIds: string[];
  projectIds: number[];
}

const k = (db: Db | Tx) => ("kysely" in db ? db.kysely : db);

/** The org's teams (oldest first: the first is the default for new projects) with members and projects. */
export async function listTeams(db: Db | Tx, orgId: number): Promise<TeamRow[]> {
  const teams = await k(db)
    .selectFrom("teams")
    .select(["id", "slug", "name", "created_at"])
    .where("org_id", "=", orgId)
    .orderBy("id")
    .execute();
  if (teams.length === 0) return [];
  const ids = teams.map((t) => Number(t.id));
  const [members, projects] = await Promise.all([
    k(db).selectFrom("team_members").select(["team_id", "user_id"]).where("team_id", "in", ids).execute(),
    k(db).selectFrom("team_projects").select(["team_id", "project_id"]).where("team_id", "in", ids).execute(),
  ]);
  return teams.map((t) => ({
    id: Number(t.id),
    slug: t.slug,
    name: t.name,
    createdAt: Number(t.created_at),
    memberIds: members.filter((m) => Number(m.team_id) === Number(t.id)).map((m) => m.user_id),
    projectIds: projects.filter((p) => Number(p.team_id) === Number(t.id)).map((p) => Number(p.project_id)),
  }));
}

/** The projects of the teams this user is on in the org (Sentry's project `isMember`): one query. */
export async function teamProjectIdsOfUser(db: Db | Tx, orgId: number, userId: string): Promise<Set<number>> {
  const rows = await k(db)
    .selectFrom("team_members as tm")
    .innerJoin("teams as t", "t.id", "tm.team_id")
    .innerJoin("team_projects as tp", "tp.team_id", "tm.team_id")
    .select("tp.project_id")
    .where("t.org_id", "=", orgId)
    .where("tm.user_id", "=", userId)
    .execute();
  return new Set(rows.map((r) => Number(r.project_id)));
}

export async function insertTeam(tx: Tx, t: { orgId: number; slug: string; name: string; now: number }): Promise<number> {
  const row = await tx
    .insertInto("teams")
    .values({ org_id: t.orgId, slug: t.slug, name: t.name, created_at: t.now })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function deleteTeam(tx: Tx, teamId: number): Promise<void> {
  await tx.deleteFrom("team_members").where("team_id", "=", teamId).execute();
  await tx.deleteFrom("team_projects").where("team_id", "=", teamId).execute();
  await tx.deleteFrom("teams").where("id", "=", teamId).execute();
}

export async function setTeamMember(tx: Tx, teamId: number, userId: string, on: boolean): Promise<void> {
  if (!on) {
    await tx.deleteFrom("team_members").where("team_id", "=", teamId).where("user_id", "=", userId).execute();
    return;
  }
  await tx
    .insertInto("team_members")
    .values({ team_id: teamId, user_id: userId })
    .onConflict((oc) => oc.columns(["team_id", "user_id"]).doNothing())
    .execute();
}

export async function setTeamProject(tx: Tx, teamId: number, projectId: number, on: boolean): Promise<void> {
  if (!on) {
    await tx.deleteFrom("team_projects").where("team_id", "=", teamId).where("project_id", "=", projectId).execute();
    return;
  }
  await tx
    .insertInto("team_projects")
    .values({ team_id: teamId, project_id: projectId })
    .onConflict((oc) => oc.columns(["team_id", "project_id"]).doNothing())
    .execute();
}

/** Puts a new project or member in the org's default team (its oldest); nothing when it has none. */
export async function addToDefaultTeam(tx: Tx, orgId: number, what: { projectId?: number; userId?: string }): Promise<void> {
  const first = await tx.selectFrom("teams").select("id").where("org_id", "=", orgId).orderBy("id").limit(1).executeTakeFirst();
  if (!first) return;
  if (what.projectId !== undefined) await setTeamProject(tx, Number(first.id), what.projectId, true);
  if (what.userId !== undefined) await setTeamMember(tx, Number(first.id), what.userId, true);
}

/** Teams by id (any organization: callers pass ids read from their own org's issues). */
export async function findTeamsById(db: Db | Tx, ids: number[]): Promise<Map<number, { id: number; slug: string; name: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await k(db)
    .selectFrom("teams")
    .select(["id", "slug", "name"])
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), slug: r.slug, name: r.name }]));
}

/**
 * Puts a member who accepted an invitation in the invitation's teams (an imported member keeps
 * their Sentry teams); an invitation without teams joins the default team, as before.
 */
export async function joinInvitedTeams(tx: Tx, orgId: number, invitationId: number, userId: string): Promise<void> {
  const rows = await tx
    .selectFrom("invitation_teams")
    .innerJoin("teams", "teams.id", "invitation_teams.team_id")
    .select("teams.id")
    .where("invitation_teams.invitation_id", "=", invitationId)
    .where("teams.org_id", "=", orgId)
    .execute();
  if (rows.length === 0) return addToDefaultTeam(tx, orgId, { userId });
  for (const r of rows) await setTeamMember(tx, Number(r.id), userId, true);
}
