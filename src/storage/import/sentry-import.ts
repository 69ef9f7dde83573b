/**
 * The reads and writes of an import from Sentry (src/server/import/): matching what a previous run
 * created by natural keys (org, team and project slugs, a key's public key), so a second run
 * updates instead of duplicating, and writing imported keys with their secret and old project id.
 */
import type { Kysely } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import { type KeyRow, toKey } from "../orgs/projects";
import type { MembersTable } from "../schema";

type Conn = Db | Tx;
const k = (c: Conn) => ("kysely" in c ? c.kysely : c);

export interface KeyOwner {
  publicKey: string;
  projectId: number;
  projectSlug: string;
  orgId: number;
}

/** Where these public keys already live here, if anywhere. */
export async function findKeyOwners(c: Conn, publicKeys: string[]): Promise<KeyOwner[]> {
  if (publicKeys.length === 0) return [];
  const out: KeyOwner[] = [];
  for (let i = 0; i < publicKeys.length; i += 500) {
    const rows = await k(c)
      .selectFrom("project_keys")
      .innerJoin("projects", "projects.id", "project_keys.project_id")
      .select(["project_keys.public_key", "project_keys.project_id", "projects.slug", "projects.org_id"])
      .where("project_keys.public_key", "in", publicKeys.slice(i, i + 500))
      .execute();
    for (const r of rows) {
      out.push({ publicKey: r.public_key, projectId: Number(r.project_id), projectSlug: r.slug, orgId: Number(r.org_id) });
    }
  }
  return out;
}

/** Public keys of every project of an organization, by project slug. */
export async function keysBySlug(c: Conn, orgId: number): Promise<Map<string, string[]>> {
  const rows = await k(c)
    .selectFrom("project_keys")
    .innerJoin("projects", "projects.id", "project_keys.project_id")
    .select(["projects.slug", "project_keys.public_key"])
    .where("projects.org_id", "=", orgId)
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.slug, [...(out.get(r.slug) ?? []), r.public_key]);
  return out;
}

export async function findProjectInOrg(
  tx: Tx,
  orgId: number,
  slug: string,
): Promise<{ id: number; name: string; platform: string } | undefined> {
  const row = await tx
    .selectFrom("projects")
    .select(["id", "name", "platform"])
    .where("org_id", "=", orgId)
    .where("slug", "=", slug)
    .executeTakeFirst();
  return row ? { id: Number(row.id), name: row.name, platform: row.platform } : undefined;
}

export async function isProjectIdTaken(tx: Tx, id: number): Promise<boolean> {
  return (await tx.selectFrom("projects").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
}

export async function findTeamBySlug(c: Conn, orgId: number, slug: string): Promise<{ id: number; name: string } | undefined> {
  const row = await k(c).selectFrom("teams").select(["id", "name"]).where("org_id", "=", orgId).where("slug", "=", slug).executeTakeFirst();
  return row ? { id: Number(row.id), name: row.name } : undefined;
}

export async function renameTeam(tx: Tx, teamId: number, name: string): Promise<void> {
  await tx.updateTable("teams").set({ name }).where("id", "=", teamId).execute();
}

export async function updateProjectIdentity(tx: Tx, projectId: number, p: { name: string; platform: string }): Promise<void> {
  await tx.updateTable("projects").set({ name: p.name, platform: p.platform }).where("id", "=", projectId).execute();
}

/** The ids of the teams linked to a project. */
export async function teamIdsOfProject(tx: Tx, projectId: number): Promise<Set<number>> {
  const rows = await tx.selectFrom("team_projects").select("team_id").where("project_id", "=", projectId).execute();
  return new Set(rows.map((r) => Number(r.team_id)));
}

export async function findKeyByPublicKey(tx: Tx, publicKey: string): Promise<KeyRow | undefined> {
  const row = await tx
    .selectFrom("project_keys")
    .select(["id", "project_id", "public_key", "label", "active", "created_at", "dsn_project_id", "secret_key"])
    .where("public_key", "=", publicKey)
    .executeTakeFirst();
  return row ? toKey(row) : undefined;
}

export interface ImportedKeyRow {
  projectId: number;
  publicKey: string;
  secretKey: string | null;
  label: string;
  active: boolean;
  dsnProjectId: number | null;
  now: number;
}

export async function insertImportedKey(tx: Tx, key: ImportedKeyRow): Promise<void> {
  await tx
    .insertInto("project_keys")
    .values({
      project_id: key.projectId,
      public_key: key.publicKey,
      secret_key: key.secretKey,
      label: key.label,
      active: key.active ? 1 : 0,
      dsn_project_id: key.dsnProjectId,
      created_at: key.now,
    })
    .execute();
}

export async function updateImportedKey(
  tx: Tx,
  keyId: number,
  key: Omit<ImportedKeyRow, "now" | "projectId" | "publicKey">,
): Promise<void> {
  await tx
    .updateTable("project_keys")
    .set({ secret_key: key.secretKey, label: key.label, active: key.active ? 1 : 0, dsn_project_id: key.dsnProjectId })
    .where("id", "=", keyId)
    .execute();
}

/** Is there a user with this (lower-cased) email who is a member of the organization? */
export async function isMemberByEmail(tx: Tx, orgId: number, email: string): Promise<boolean> {
  // Better Auth's `user` table is not in our typed schema; a narrow raw read keeps it that way.
  const k = tx as unknown as Kysely<{ user: { id: string; email: string }; members: { org_id: number; user_id: string } }>;
  const row = await k
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select("members.user_id")
    .where("members.org_id", "=", orgId)
    .where("user.email", "=", email)
    .executeTakeFirst();
  return row !== undefined;
}

export interface OpenInvitation {
  id: number;
  role: MembersTable["role"];
  teamIds: number[];
}

/** The invitation for this email that is neither accepted nor revoked (expired ones count: resendable). */
export async function findOpenInvitation(tx: Tx, orgId: number, email: string): Promise<OpenInvitation | undefined> {
  const row = await tx
    .selectFrom("invitations")
    .select(["id", "role"])
    .where("org_id", "=", orgId)
    .where("email", "=", email)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .orderBy("id", "desc")
    .executeTakeFirst();
  if (!row) return undefined;
  const teams = await tx.selectFrom("invitation_teams").select("team_id").where("invitation_id", "=", Number(row.id)).execute();
  return { id: Number(row.id), role: row.role, teamIds: teams.map((t) => Number(t.team_id)).sort((a, b) => a - b) };
}

export async function insertImportedInvitation(
  tx: Tx,
  i: { orgId: number; email: string; role: MembersTable["role"]; tokenHash: string; invitedBy: string; now: number; expiresAt: number },
): Promise<number> {
  const row = await tx
    .insertInto("invitations")
    .values({
      org_id: i.orgId,
      email: i.email,
      role: i.role,
      token_hash: i.tokenHash,
      invited_by: i.invitedBy,
      created_at: i.now,
      expires_at: i.expiresAt,
      accepted_at: null,
      accepted_user_id: null,
      revoked_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function setInvitationRole(tx: Tx, invitationId: number, role: MembersTable["role"]): Promise<void> {
  await tx.updateTable("invitations").set({ role }).where("id", "=", invitationId).execute();
}

/** Replaces the teams an invitation joins. */
export async function setInvitationTeams(tx: Tx, invitationId: number, teamIds: number[]): Promise<void> {
  await tx.deleteFrom("invitation_teams").where("invitation_id", "=", invitationId).execute();
  if (teamIds.length === 0) return;
  await tx
    .insertInto("invitation_teams")
    .values(teamIds.map((team_id) => ({ invitation_id: invitationId, team_id })))
    .execute();
}

/** The local row a source object without a natural key became on an earlier run (0041). */
export async function findImportLink(tx: Tx, orgId: number, kind: string, sourceKey: string): Promise<number | undefined> {
  const row = await tx
    .selectFrom("import_links")
    .select("local_id")
    .where("org_id", "=", orgId)
    .where("kind", "=", kind)
    .where("source_key", "=", sourceKey)
    .executeTakeFirst();
  return row ? Number(row.local_id) : undefined;
}

export async function putImportLink(
  tx: Tx,
  l: { orgId: number; kind: string; sourceKey: string; localId: number; now: number },
): Promise<void> {
  await tx
    .insertInto("import_links")
    .values({ org_id: l.orgId, kind: l.kind, source_key: l.sourceKey, local_id: l.localId, created_at: l.now })
    .onConflict((oc) => oc.columns(["org_id", "kind", "source_key"]).doUpdateSet({ local_id: l.localId }))
    .execute();
}

/** How a project groups its events (version, transition, settings with its rules), read inside a transaction. */
export async function projectGroupingOf(
  tx: Tx,
  projectId: number,
): Promise<{ version: string; previous: string | null; switchedAt: number | null; settings: Record<string, unknown> }> {
  const r = await tx
    .selectFrom("projects")
    .select(["grouping_version", "grouping_previous", "grouping_switched_at", "settings"])
    .where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(r.settings) as Record<string, unknown>;
  } catch {
    // a broken settings column groups with the defaults, as the digest does
  }
  return {
    version: r.grouping_version,
    previous: r.grouping_previous,
    switchedAt: r.grouping_switched_at === null ? null : Number(r.grouping_switched_at),
    settings,
  };
}

/** The fields of an imported issue the source decides (compared on a second run). */
export interface ImportedIssueFields {
  title: string;
  culprit: string;
  level: string;
  status: string;
  substatus: string;
  firstSeen: number;
  lastSeen: number;
  eventCount: number;
  userCount: number;
  resolution: string | null;
  ignoreDetails: string | null;
  resolvedAt: number | null;
  assigneeUserId: string | null;
  assigneeTeamId: number | null;
  firstEventId: string | null;
  lastEventId: string | null;
}

export async function readImportedIssue(tx: Tx, issueId: number): Promise<ImportedIssueFields | undefined> {
  const r = await tx.selectFrom("issues").selectAll().where("id", "=", issueId).executeTakeFirst();
  if (!r) return undefined;
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    title: r.title,
    culprit: r.culprit,
    level: r.level,
    status: r.status,
    substatus: r.substatus,
    firstSeen: Number(r.first_seen),
    lastSeen: Number(r.last_seen),
    eventCount: Number(r.event_count),
    userCount: Number(r.user_count),
    resolution: r.resolution,
    ignoreDetails: r.ignore_details,
    resolvedAt: n(r.resolved_at),
    assigneeUserId: r.assignee_user_id,
    assigneeTeamId: n(r.assignee_team_id),
    firstEventId: r.first_event_id,
    lastEventId: r.last_event_id,
  };
}

export async function writeImportedIssue(tx: Tx, issueId: number, f: ImportedIssueFields): Promise<void> {
  await tx
    .updateTable("issues")
    .set({
      title: f.title,
      culprit: f.culprit,
      level: f.level,
      status: f.status,
      substatus: f.substatus,
      first_seen: f.firstSeen,
      last_seen: f.lastSeen,
      event_count: f.eventCount,
      user_count: f.userCount,
      resolution: f.resolution,
      ignore_details: f.ignoreDetails,
      resolved_at: f.resolvedAt,
      status_changed_at: f.resolvedAt,
      due_at: null,
      assignee_user_id: f.assigneeUserId,
      assignee_team_id: f.assigneeTeamId,
      first_event_id: f.firstEventId,
      last_event_id: f.lastEventId,
    })
    .where("id", "=", issueId)
    .execute();
}

/** The oldest and newest stored event ids of an issue (by event time). */
export async function issueEventBounds(tx: Tx, issueId: number): Promise<{ first: string | null; last: string | null }> {
  const q = (dir: "asc" | "desc") =>
    tx
      .selectFrom("events")
      .select("event_id")
      .where("issue_id", "=", issueId)
      .orderBy("timestamp", dir)
      .orderBy("event_id", dir)
      .limit(1)
      .executeTakeFirst();
  return { first: (await q("asc"))?.event_id ?? null, last: (await q("desc"))?.event_id ?? null };
}

/** Makes the project's next short id at least `next`, so new issues continue after the imported numbers. */
export async function raiseShortIdCounter(tx: Tx, projectId: number, next: number): Promise<void> {
  await tx.updateTable("projects").set({ next_short_id: next }).where("id", "=", projectId).where("next_short_id", "<", next).execute();
}

/** Whether an issue of the project already has this short id. */
export async function shortIdTaken(tx: Tx, projectId: number, shortId: number): Promise<boolean> {
  const row = await tx
    .selectFrom("issues")
    .select("id")
    .where("project_id", "=", projectId)
    .where("short_id", "=", shortId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The issue a Sentry short id Errata could not keep (`SHOP-API-1A`, base 32) was imported as, by
 * the project's slug here and the id's suffix; undefined when none was.
 */
export async function issueByShortIdAlias(tx: Tx, orgId: number, projectSlug: string, suffix: string): Promise<number | undefined> {
  return findImportLink(tx, orgId, "short_id", `${projectSlug.toLowerCase()}/${suffix.toUpperCase()}`);
}
