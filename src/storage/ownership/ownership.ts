/**
 * A project's ownership settings (0032-ownership) and the organization lookups that turn rule
 * owners (emails, team slugs) into assignees.
 */
import { sql } from "kysely";
import type { AutoAssignment } from "../../core/ownership/rules";
import type { Db } from "../db";
import type { Tx } from "../dialect";

type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c);

export interface OwnershipRow {
  projectId: number;
  raw: string;
  fallthrough: boolean;
  autoAssignment: AutoAssignment;
  codeownersAutoSync: boolean;
  createdAt: number;
  updatedAt: number;
}

export async function findOwnership(c: Conn, projectId: number): Promise<OwnershipRow | undefined> {
  const r = await k(c).selectFrom("project_ownership").selectAll().where("project_id", "=", projectId).executeTakeFirst();
  if (!r) return undefined;
  return {
    projectId: Number(r.project_id),
    raw: r.raw,
    fallthrough: Number(r.fallthrough) === 1,
    autoAssignment: (["owner", "suspect", "off"].includes(r.auto_assignment) ? r.auto_assignment : "owner") as AutoAssignment,
    codeownersAutoSync: Number(r.codeowners_auto_sync) === 1,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export async function saveOwnership(tx: Tx, row: Omit<OwnershipRow, "createdAt" | "updatedAt">, now: number): Promise<void> {
  const values = {
    raw: row.raw,
    fallthrough: row.fallthrough ? 1 : 0,
    auto_assignment: row.autoAssignment,
    codeowners_auto_sync: row.codeownersAutoSync ? 1 : 0,
    updated_at: now,
  };
  await tx
    .insertInto("project_ownership")
    .values({ project_id: row.projectId, created_at: now, ...values })
    .onConflict((oc) => oc.column("project_id").doUpdateSet(values))
    .execute();
}

export interface OrgPerson {
  id: string;
  email: string;
  name: string;
}

/** Members of the organization among these emails (compared lower-cased), by lower-cased email. */
export async function membersByEmail(c: Conn, orgId: number, emails: string[]): Promise<Map<string, OrgPerson>> {
  const wanted = [...new Set(emails.map((e) => e.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  // Better Auth's `user` table is not in our typed schema.
  const kk = k(c) as unknown as import("kysely").Kysely<{
    user: { id: string; email: string; name: string };
    members: { org_id: number; user_id: string };
  }>;
  const out = new Map<string, OrgPerson>();
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await kk
      .selectFrom("members")
      .innerJoin("user", "user.id", "members.user_id")
      .select(["user.id", "user.email", "user.name"])
      .where("members.org_id", "=", orgId)
      .where(sql`lower(${sql.ref("user.email")})`, "in", wanted.slice(i, i + 500))
      .execute();
    for (const r of rows) out.set(r.email.toLowerCase(), r);
  }
  return out;
}

/** Teams of the organization among these slugs, by slug. */
export async function teamsBySlug(c: Conn, orgId: number, slugs: string[]): Promise<Map<string, { id: number; slug: string }>> {
  const wanted = [...new Set(slugs)];
  if (wanted.length === 0) return new Map();
  const rows = await k(c).selectFrom("teams").select(["id", "slug"]).where("org_id", "=", orgId).where("slug", "in", wanted).execute();
  return new Map(rows.map((r) => [r.slug, { id: Number(r.id), slug: r.slug }]));
}

/** The organization a project belongs to. */
export async function projectOrgId(c: Conn, projectId: number): Promise<number | undefined> {
  const r = await k(c).selectFrom("projects").select("org_id").where("id", "=", projectId).executeTakeFirst();
  return r ? Number(r.org_id) : undefined;
}

/** The first stored event of an issue (suspect commits are matched on it). */
export async function firstEventRef(c: Conn, issueId: number): Promise<{ projectId: number; eventId: string } | undefined> {
  const r = await k(c)
    .selectFrom("events")
    .select(["project_id", "event_id"])
    .where("issue_id", "=", issueId)
    .orderBy("received_at", "asc")
    .orderBy("id", "asc")
    .limit(1)
    .executeTakeFirst();
  return r ? { projectId: Number(r.project_id), eventId: r.event_id } : undefined;
}

/** The release of this version in the project's organization (releases are per organization, as in Sentry). */
export async function projectReleaseId(c: Conn, projectId: number, version: string): Promise<number | undefined> {
  const r = await k(c)
    .selectFrom("releases as r")
    .innerJoin("projects as p", "p.org_id", "r.org_id")
    .select("r.id")
    .where("p.id", "=", projectId)
    .where("r.version", "=", version)
    .executeTakeFirst();
  return r ? Number(r.id) : undefined;
}
