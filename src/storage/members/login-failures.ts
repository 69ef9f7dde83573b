/**
 * Rows of `login_failures`: one per failed or in-flight sign-in per subject. The throttle inserts
 * first and counts after, so concurrent attempts see each other and at most the limit get through.
 */
import type { Db } from "../db";

export async function insertLoginAttempt(db: Db, subjects: string[], at: number): Promise<number[]> {
  if (subjects.length === 0) return [];
  const rows = await db.kysely
    .insertInto("login_failures")
    .values(subjects.map((subject) => ({ subject, at })))
    .returning("id")
    .execute();
  return rows.map((r) => Number(r.id));
}

/** The `at` of this subject's newest rows since `since`, newest first, at most `limit`. */
export async function recentLoginFailures(db: Db, subject: string, since: number, limit: number): Promise<number[]> {
  const rows = await db.kysely
    .selectFrom("login_failures")
    .select("at")
    .where("subject", "=", subject)
    .where("at", ">", since)
    .orderBy("at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.at));
}

export async function deleteLoginAttempts(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.kysely.deleteFrom("login_failures").where("id", "in", ids).execute();
}

/** Forgets failures older than the window (they no longer count for anyone). */
export async function pruneLoginFailures(db: Db, before: number): Promise<void> {
  await db.kysely.deleteFrom("login_failures").where("at", "<=", before).execute();
}
