/**
 * Who may see which project (SPEC §6), defined once for every reader: the viewer's membership
 * lookup (src/server/access/access.ts → visibility.ts's canSeeProject), the people alerts may mail,
 * the "project members" email channel and the weekly summary.
 * - admins and owners see every project of their organization;
 * - members and viewers see the projects of their teams;
 * - while the organization has no team at all, every member sees every project (as before teams
 *   existed). Once it has one, a project on no team is seen by admins and owners only.
 */
import { type Expression, type SqlBool, sql } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { MembersTable } from "../schema";

type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c);

/** The roles that see every project of their organization. */
export const SEES_EVERY_PROJECT: readonly MembersTable["role"][] = ["owner", "admin"];

/**
 * The member row aliased `m` (members: org_id, user_id, role) may see the project row aliased `p`
 * (projects: id, org_id) of the same organization. Raw SQL so any query joining the two can use it
 * whatever else it joins (and the same text runs on SQLite and PostgreSQL).
 */
export function memberSeesProject(m = "m", p = "p"): Expression<SqlBool> {
  const ref = (alias: string, column: string) => sql.ref(`${alias}.${column}`);
  return sql<SqlBool>`(
    ${ref(m, "role")} in (${sql.join([...SEES_EVERY_PROJECT])})
    or not exists (select 1 from teams vt where vt.org_id = ${ref(p, "org_id")})
    or exists (
      select 1 from team_projects vtp
      inner join team_members vtm on vtm.team_id = vtp.team_id
      where vtp.project_id = ${ref(p, "id")} and vtm.user_id = ${ref(m, "user_id")}
    )
  )`;
}

/**
 * The project ids a member with this role may see in the org; null when they see every project,
 * which `OrgSummary.visibleProjectIds` reads as "no filter". The two early answers are the
 * predicate's first two clauses, taken before the query so most requests need none.
 */
export async function visibleProjectIds(c: Conn, orgId: number, userId: string, role: MembersTable["role"]): Promise<number[] | null> {
  if (SEES_EVERY_PROJECT.includes(role)) return null;
  const anyTeam = await k(c).selectFrom("teams").select("id").where("org_id", "=", orgId).limit(1).executeTakeFirst();
  if (!anyTeam) return null;
  const rows = await k(c)
    .selectFrom("projects as p")
    .innerJoin("members as m", "m.org_id", "p.org_id")
    .select("p.id")
    .where("p.org_id", "=", orgId)
    .where("m.user_id", "=", userId)
    .where(memberSeesProject())
    .orderBy("p.id")
    .execute();
  return rows.map((r) => Number(r.id));
}

/** The projects of the org the member may see, by slug. */
export async function memberVisibleProjects(
  c: Conn,
  orgId: number,
  userId: string,
): Promise<Array<{ id: number; slug: string; name: string }>> {
  const rows = await k(c)
    .selectFrom("projects as p")
    .innerJoin("members as m", "m.org_id", "p.org_id")
    .select(["p.id", "p.slug", "p.name"])
    .where("p.org_id", "=", orgId)
    .where("m.user_id", "=", userId)
    .where(memberSeesProject())
    .orderBy("p.slug")
    .execute();
  return rows.map((r) => ({ id: Number(r.id), slug: r.slug, name: r.name }));
}
