/**
 * Imports started from the settings page (0041): one row per run, written as it progresses and
 * polled by the page. The token is never here.
 */
import type { Db } from "../db";

export interface ImportRunRow {
  id: string;
  orgId: number;
  userId: string;
  status: "running" | "done" | "failed";
  progress: string;
  report: string | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

type Raw = {
  id: string;
  org_id: number;
  user_id: string;
  status: string;
  progress: string;
  report: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
};

const toRun = (r: Raw): ImportRunRow => ({
  id: r.id,
  orgId: Number(r.org_id),
  userId: r.user_id,
  status: r.status as ImportRunRow["status"],
  progress: r.progress,
  report: r.report,
  error: r.error,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export async function insertImportRun(
  db: Db,
  r: { id: string; orgId: number; userId: string; progress: string; now: number },
): Promise<void> {
  await db.kysely
    .insertInto("import_runs")
    .values({
      id: r.id,
      org_id: r.orgId,
      user_id: r.userId,
      status: "running",
      progress: r.progress,
      report: null,
      error: null,
      created_at: r.now,
      updated_at: r.now,
    })
    .execute();
}

export async function updateImportRun(
  db: Db,
  id: string,
  patch: { status?: ImportRunRow["status"]; progress?: string; report?: string; error?: string; now: number },
): Promise<void> {
  await db.kysely
    .updateTable("import_runs")
    .set({
      ...(patch.status ? { status: patch.status } : {}),
      ...(patch.progress !== undefined ? { progress: patch.progress } : {}),
      ...(patch.report !== undefined ? { report: patch.report } : {}),
      ...(patch.error !== undefined ? { error: patch.error } : {}),
      updated_at: patch.now,
    })
    .where("id", "=", id)
    .execute();
}

export async function findImportRun(db: Db, orgId: number, id: string): Promise<ImportRunRow | undefined> {
  const r = await db.kysely.selectFrom("import_runs").selectAll().where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
  return r ? toRun(r) : undefined;
}

/** The organization's latest runs, newest first. */
export async function recentImportRuns(db: Db, orgId: number, limit: number): Promise<ImportRunRow[]> {
  const rows = await db.kysely
    .selectFrom("import_runs")
    .selectAll()
    .where("org_id", "=", orgId)
    .orderBy("created_at", "desc")
    .limit(limit)
    .execute();
  return rows.map(toRun);
}
