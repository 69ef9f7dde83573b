import { sql } from "kysely";
import { DEFAULT_GROUPING_VERSION } from "../../core/grouping/index";
import { projectIdOfRef } from "../../core/project-ref";
import { insertDefaultAlerting } from "../alerts/rules";
import type { Db } from "../db";
import { isPostgres, type Tx } from "../dialect";
import type { ProjectsTable } from "../schema";

export interface ProjectRow {
  id: number;
  orgId: number;
  slug: string;
  name: string;
  platform: string;
  createdAt: number;
  groupingVersion: string;
}

export interface KeyRow {
  id: number;
  projectId: number;
  publicKey: string;
  label: string;
  active: boolean;
  createdAt: number;
  /** The project id an imported DSN carries when it is not this project's own (issue 32); null: none. */
  dsnProjectId: number | null;
  /** Sentry's deprecated secret half of an imported DSN; null for keys made here. */
  secretKey: string | null;
}

/** What ingest needs to authenticate a DSN: the key, its project and whether both are usable. */
export interface IngestKey {
  keyId: number;
  projectId: number;
  publicKey: string;
  active: boolean;
  /** A second project id the key is accepted on: an imported DSN's old id (issue 32); null: none. */
  dsnProjectId: number | null;
  /** The project's own limit (project settings), on top of the installation's; null = none. */
  projectEventsPerMinute: number | null;
  /** The project stores session replays (settings `replays.enabled`, on unless turned off). */
  replaysEnabled: boolean;
}

export async function findIngestKey(db: Db, publicKey: string): Promise<IngestKey | undefined> {
  const row = await db.kysely
    .selectFrom("project_keys")
    .leftJoin("projects", "projects.id", "project_keys.project_id")
    .select([
      "project_keys.id",
      "project_keys.project_id",
      "project_keys.public_key",
      "project_keys.active",
      "project_keys.dsn_project_id",
      "projects.settings",
    ])
    .where("project_keys.public_key", "=", publicKey)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    keyId: Number(row.id),
    projectId: Number(row.project_id),
    publicKey: row.public_key,
    active: Number(row.active) === 1,
    dsnProjectId: row.dsn_project_id === null ? null : Number(row.dsn_project_id),
    projectEventsPerMinute: projectEventsPerMinute(row.settings),
    replaysEnabled: replaysEnabled(row.settings),
  };
}

/** Replay storage is on unless the project's settings say `replays.enabled: false`. */
export function replaysEnabled(settings: string | null): boolean {
  if (!settings) return true;
  try {
    return (JSON.parse(settings) as { replays?: { enabled?: unknown } | null }).replays?.enabled !== false;
  } catch {
    return true;
  }
}

/** The project's own rate limit from its settings JSON (`rateLimit.eventsPerMinute`), if any. */
function projectEventsPerMinute(settings: string | null): number | null {
  if (!settings) return null;
  try {
    const n = (JSON.parse(settings) as { rateLimit?: { eventsPerMinute?: unknown } | null }).rateLimit?.eventsPerMinute;
    return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

export async function projectExists(db: Db, projectId: number): Promise<boolean> {
  const row = await db.kysely.selectFrom("projects").select("id").where("id", "=", projectId).executeTakeFirst();
  return row !== undefined;
}

type ProjectSelect = Pick<ProjectsTable, "org_id" | "slug" | "name" | "platform" | "created_at" | "grouping_version"> & { id: number };

function toProject(r: ProjectSelect): ProjectRow {
  return {
    id: Number(r.id),
    orgId: Number(r.org_id),
    slug: r.slug,
    name: r.name,
    platform: r.platform,
    createdAt: Number(r.created_at),
    groupingVersion: r.grouping_version,
  };
}

const projectColumns = ["id", "org_id", "slug", "name", "platform", "created_at", "grouping_version"] as const;

export async function insertProject(
  tx: Tx,
  p: { orgId: number; slug: string; name: string; platform: string; now: number; id?: number; emailAlerts?: boolean },
): Promise<ProjectRow> {
  const row = await tx
    .insertInto("projects")
    .values({
      // An explicit id (an import keeping its DSNs' project id, issue 32); the sequence follows below.
      ...(p.id !== undefined ? { id: p.id } : {}),
      org_id: p.orgId,
      slug: p.slug,
      name: p.name,
      platform: p.platform,
      created_at: p.now,
      next_short_id: 1,
      // New projects get the current default; existing ones keep the version they recorded.
      grouping_version: DEFAULT_GROUPING_VERSION,
      settings: "{}",
    })
    .returning(projectColumns)
    .executeTakeFirstOrThrow();
  // SQLite's AUTOINCREMENT moves past an explicit id by itself; a PostgreSQL sequence does not.
  if (p.id !== undefined && isPostgres(tx)) {
    await sql`select setval(pg_get_serial_sequence('projects', 'id'), greatest((select max(id) from projects), 1))`.execute(tx);
  }
  // Alerts (issue 11): new issues and regressions email the project's members until changed —
  // when the installation can send mail; otherwise the rule waits for a channel.
  await insertDefaultAlerting(tx, Number(row.id), p.now, p.emailAlerts ?? true);
  return toProject(row);
}

const keyColumns = ["id", "project_id", "public_key", "label", "active", "created_at", "dsn_project_id", "secret_key"] as const;
/** Renames a project or changes its slug or platform (absent fields unchanged). */
export async function updateProjectIdentity(
  tx: Tx,
  projectId: number,
  patch: { name?: string; slug?: string; platform?: string },
): Promise<void> {
  const set = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
    ...(patch.platform !== undefined ? { platform: patch.platform } : {}),
  };
  if (Object.keys(set).length === 0) return;
  await tx.updateTable("projects").set(set).where("id", "=", projectId).execute();
}

export async function insertKey(tx: Tx, k: { projectId: number; publicKey: string; label: string; now: number }): Promise<KeyRow> {
  const row = await tx
    .insertInto("project_keys")
    .values({ project_id: k.projectId, public_key: k.publicKey, label: k.label, active: 1, created_at: k.now })
    .returning(keyColumns)
    .executeTakeFirstOrThrow();
  return toKey(row);
}

export function toKey(r: {
  id: number;
  project_id: number;
  public_key: string;
  label: string;
  active: number;
  created_at: number;
  dsn_project_id: number | null;
  secret_key: string | null;
}): KeyRow {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    publicKey: r.public_key,
    label: r.label,
    active: Number(r.active) === 1,
    createdAt: Number(r.created_at),
    dsnProjectId: r.dsn_project_id === null ? null : Number(r.dsn_project_id),
    secretKey: r.secret_key,
  };
}

export async function listProjectsOfOrg(db: Db, orgId: number): Promise<ProjectRow[]> {
  const rows = await db.kysely.selectFrom("projects").select(projectColumns).where("org_id", "=", orgId).orderBy("slug").execute();
  return rows.map(toProject);
}

export async function findProjectBySlug(db: Db, orgId: number, slug: string): Promise<ProjectRow | undefined> {
  const row = await db.kysely
    .selectFrom("projects")
    .select(projectColumns)
    .where("org_id", "=", orgId)
    .where("slug", "=", slug)
    .executeTakeFirst();
  return row ? toProject(row) : undefined;
}

/** Sentry's `project_id_or_slug` (compat/project-ref.ts): the org's project by slug, else by numeric id. */
export async function findProjectByRef(db: Db, orgId: number, ref: string): Promise<ProjectRow | undefined> {
  const bySlug = await findProjectBySlug(db, orgId, ref);
  const id = projectIdOfRef(ref);
  if (bySlug || id === null) return bySlug;
  const byId = await findProjectById(db, id);
  return byId?.orgId === orgId ? byId : undefined;
}

export async function findProjectById(db: Db, id: number): Promise<ProjectRow | undefined> {
  const row = await db.kysely.selectFrom("projects").select(projectColumns).where("id", "=", id).executeTakeFirst();
  return row ? toProject(row) : undefined;
}

export async function listKeys(db: Db, projectId: number): Promise<KeyRow[]> {
  const rows = await db.kysely.selectFrom("project_keys").select(keyColumns).where("project_id", "=", projectId).orderBy("id").execute();
  return rows.map(toKey);
}

// ---------------------------------------------------------------------------------------------
// Project administration (src/server/orgs/project-admin.ts): keys and settings.

export async function findKey(db: Db | Tx, projectId: number, keyId: number): Promise<KeyRow | undefined> {
  const conn = "kysely" in db ? db.kysely : db;
  const row = await conn
    .selectFrom("project_keys")
    .select(keyColumns)
    .where("project_id", "=", projectId)
    .where("id", "=", keyId)
    .executeTakeFirst();
  return row ? toKey(row) : undefined;
}

/** Changes a key's label and/or active flag; undefined when the key is not the project's. */
export async function updateKey(
  tx: Tx,
  projectId: number,
  keyId: number,
  patch: { label?: string; active?: boolean },
): Promise<KeyRow | undefined> {
  const set: { label?: string; active?: number } = {};
  if (patch.label !== undefined) set.label = patch.label;
  if (patch.active !== undefined) set.active = patch.active ? 1 : 0;
  if (Object.keys(set).length > 0) {
    await tx.updateTable("project_keys").set(set).where("project_id", "=", projectId).where("id", "=", keyId).execute();
  }
  return findKey(tx, projectId, keyId);
}

/** Replaces a project's settings JSON (the caller merged and validated it). */
export async function writeProjectSettings(tx: Tx, projectId: number, settings: Record<string, unknown>): Promise<void> {
  await tx
    .updateTable("projects")
    .set({ settings: JSON.stringify(settings) })
    .where("id", "=", projectId)
    .execute();
}

/** A project's settings JSON, parsed (`{}` when absent or unreadable); usable inside a write transaction. */
export async function readProjectSettings(tx: Tx, projectId: number): Promise<Record<string, unknown>> {
  const row = await tx.selectFrom("projects").select("settings").where("id", "=", projectId).executeTakeFirst();
  try {
    const v: unknown = JSON.parse(row?.settings ?? "{}");
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
