/**
 * CODEOWNERS files of a project and the organization's external names (0039-owner-routing).
 */
import type { Kysely } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";

type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c);

export interface CodeownersRow {
  id: number;
  projectId: number;
  raw: string;
  codeMappingId: string | null;
  createdAt: number;
  updatedAt: number;
}

const toCodeowners = (r: {
  id: number;
  project_id: number;
  raw: string;
  code_mapping_id: string | null;
  created_at: number;
  updated_at: number;
}): CodeownersRow => ({
  id: Number(r.id),
  projectId: Number(r.project_id),
  raw: r.raw,
  codeMappingId: r.code_mapping_id,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export async function listCodeowners(c: Conn, projectId: number): Promise<CodeownersRow[]> {
  const rows = await k(c).selectFrom("project_codeowners").selectAll().where("project_id", "=", projectId).orderBy("id").execute();
  return rows.map(toCodeowners);
}

/** One file per code mapping (none = the project's pasted file): an existing one is replaced. */
export async function saveCodeowners(
  tx: Tx,
  row: { projectId: number; raw: string; codeMappingId: string | null },
  now: number,
): Promise<{ row: CodeownersRow; created: boolean }> {
  let q = tx.selectFrom("project_codeowners").select("id").where("project_id", "=", row.projectId);
  q = row.codeMappingId === null ? q.where("code_mapping_id", "is", null) : q.where("code_mapping_id", "=", row.codeMappingId);
  const existing = await q.executeTakeFirst();
  if (existing) {
    const r = await tx
      .updateTable("project_codeowners")
      .set({ raw: row.raw, updated_at: now })
      .where("id", "=", existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row: toCodeowners(r), created: false };
  }
  const r = await tx
    .insertInto("project_codeowners")
    .values({ project_id: row.projectId, raw: row.raw, code_mapping_id: row.codeMappingId, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row: toCodeowners(r), created: true };
}

export async function deleteCodeowners(tx: Tx, projectId: number, id: number): Promise<boolean> {
  const r = await tx.deleteFrom("project_codeowners").where("project_id", "=", projectId).where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export interface ExternalNameRow {
  id: number;
  orgId: number;
  provider: string;
  externalName: string;
  teamId: number | null;
  teamSlug: string | null;
  userId: string | null;
  userEmail: string | null;
  createdAt: number;
}

type People = Kysely<{
  external_names: {
    id: number;
    org_id: number;
    provider: string;
    external_name: string;
    team_id: number | null;
    user_id: string | null;
    created_at: number;
  };
  teams: { id: number; slug: string };
  user: { id: string; email: string };
}>;

/** The organization's external names with the team slug or member email each maps to. */
export async function listExternalNames(c: Conn, orgId: number): Promise<ExternalNameRow[]> {
  const rows = await (k(c) as unknown as People)
    .selectFrom("external_names as x")
    .leftJoin("teams as t", "t.id", "x.team_id")
    .leftJoin("user as u", "u.id", "x.user_id")
    .select([
      "x.id",
      "x.org_id",
      "x.provider",
      "x.external_name",
      "x.team_id",
      "x.user_id",
      "x.created_at",
      "t.slug as team_slug",
      "u.email as user_email",
    ])
    .where("x.org_id", "=", orgId)
    .orderBy("x.external_name")
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    orgId: Number(r.org_id),
    provider: r.provider,
    externalName: r.external_name,
    teamId: r.team_id === null ? null : Number(r.team_id),
    teamSlug: r.team_slug ?? null,
    userId: r.user_id,
    userEmail: r.user_email ?? null,
    createdAt: Number(r.created_at),
  }));
}

/** Maps a name (lower-cased) to a team or a member, replacing what it mapped to. */
export async function upsertExternalName(
  tx: Tx,
  row: { orgId: number; provider: string; externalName: string; teamId: number | null; userId: string | null },
  now: number,
): Promise<number> {
  const values = { provider: row.provider, team_id: row.teamId, user_id: row.userId };
  const r = await tx
    .insertInto("external_names")
    .values({ org_id: row.orgId, external_name: row.externalName.toLowerCase(), created_at: now, ...values })
    .onConflict((oc) => oc.columns(["org_id", "external_name"]).doUpdateSet(values))
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function deleteExternalName(tx: Tx, orgId: number, id: number): Promise<boolean> {
  const r = await tx.deleteFrom("external_names").where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
