/**
 * People lookups for alerts mailed to people (issue 30): the email of every member of some teams,
 * the project's recently active members (Better Auth's sessions), and the project's audience (who
 * may see it and did not opt out), which bounds every alert email without explicit addresses.
 */
import type { Kysely } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import { memberSeesProject } from "../members/project-visibility";

type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c);

/** Better Auth's tables are not in our typed schema. */
type People = Kysely<{
  user: { id: string; email: string; name: string };
  session: { userId: string; updatedAt: unknown };
  members: { org_id: number; user_id: string };
  teams: { id: number; org_id: number; slug: string };
  team_members: { team_id: number; user_id: string };
  projects: { id: number; org_id: number };
}>;

/** Emails of the members of these teams (by slug) of the organization. */
export async function teamMemberEmails(c: Conn, orgId: number, slugs: string[]): Promise<string[]> {
  if (slugs.length === 0) return [];
  const rows = await (k(c) as unknown as People)
    .selectFrom("teams as t")
    .innerJoin("team_members as tm", "tm.team_id", "t.id")
    .innerJoin("members as m", (j) => j.onRef("m.user_id", "=", "tm.user_id").onRef("m.org_id", "=", "t.org_id"))
    .innerJoin("user as u", "u.id", "tm.user_id")
    .select("u.email")
    .distinct()
    .where("t.org_id", "=", orgId)
    .where("t.slug", "in", [...new Set(slugs)].slice(0, 500))
    .execute();
  return rows.map((r) => r.email);
}

/**
 * The project's organization members who signed in most recently, at most `limit` (Sentry's
 * "recently active members" fallthrough); members who never signed in are not among them.
 */
export async function activeMemberEmails(c: Conn, projectId: number, limit: number): Promise<string[]> {
  const rows = await (k(c) as unknown as People)
    .selectFrom("projects as p")
    .innerJoin("members as m", "m.org_id", "p.org_id")
    .innerJoin("user as u", "u.id", "m.user_id")
    .innerJoin("session as s", "s.userId", "m.user_id")
    .select((eb) => ["u.email", eb.fn.max("s.updatedAt").as("last")])
    .where("p.id", "=", projectId)
    .groupBy("u.email")
    .orderBy("last", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => r.email);
}

type Audience = Kysely<{
  user: { id: string; email: string };
  members: { org_id: number; user_id: string; role: string };
  projects: { id: number; org_id: number };
  alert_email_optouts: { user_id: string; project_id: number };
}>;

/**
 * Emails of the members who may see the project (storage/members/project-visibility.ts) and did not
 * turn off its email: everyone an alert about it may reach, so an issue's title never goes to a
 * member who cannot open it.
 */
export async function projectAudienceEmails(c: Conn, projectId: number): Promise<string[]> {
  const rows = await (k(c) as unknown as Audience)
    .selectFrom("projects as p")
    .innerJoin("members as m", "m.org_id", "p.org_id")
    .innerJoin("user as u", "u.id", "m.user_id")
    .leftJoin("alert_email_optouts as o", (j) => j.onRef("o.user_id", "=", "m.user_id").onRef("o.project_id", "=", "p.id"))
    .select("u.email")
    .where("p.id", "=", projectId)
    .where("o.user_id", "is", null)
    .where(memberSeesProject("m", "p"))
    .orderBy("u.email")
    .execute();
  return rows.map((r) => r.email);
}
