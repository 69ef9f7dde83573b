/**
 * Rows of `login_failures`: one per failed or in-flight sign-in per subject. The throttle inserts
 * first and counts after, so concurrent attempts see each other and at most the limit get through.
 */
import type { Db } from "../db";

/** `origin`: the attempt's hashed account key and client address, kept on each of its rows. */
export async function insertLoginAttempt(
  db: Db,
  subjects: string[],
  at: number,
  origin: { account: string | null; address: string | null } = { account: null, address: null },
): Promise<number[]> {
  if (subjects.length === 0) return [];
  const rows = await db.kysely
    .insertInto("login_failures")
    .values(subjects.map((subject) => ({ subject, at, account: origin.account, address: origin.address })))
    .returning("id")
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * An address's failures since `since`, newest first (at most `limit`), without the rows of the
 * attempt being judged (`except`), with the accounts they aimed at.
 */
export async function addressFailures(
  db: Db,
  subject: string,
  since: number,
  except: number[],
  limit: number,
): Promise<Array<{ at: number; account: string | null }>> {
  let q = db.kysely.selectFrom("login_failures").select(["at", "account"]).where("subject", "=", subject).where("at", ">", since);
  if (except.length > 0) q = q.where("id", "not in", except);
  const rows = await q.orderBy("at", "desc").limit(limit).execute();
  return rows.map((r) => ({ at: Number(r.at), account: r.account }));
}

/** Failures counted against a subject in (`since`, `before`), and from how many distinct addresses. */
export async function failureSpread(
  db: Db,
  subject: string,
  since: number,
  before: number,
): Promise<{ failures: number; addresses: number }> {
  const row = await db.kysely
    .selectFrom("login_failures")
    .select((eb) => [eb.fn.countAll<string | number>().as("failures"), eb.fn.count<string | number>("address").distinct().as("addresses")])
    .where("subject", "=", subject)
    .where("at", ">", since)
    .where("at", "<", before)
    .executeTakeFirst();
  return { failures: Number(row?.failures ?? 0), addresses: Number(row?.addresses ?? 0) };
}

/**
 * Records the marker `once:<what>` at `at` unless one newer than `since` exists; true when this call
 * recorded it. A unique index makes it exact across web processes: of concurrent callers exactly
 * one inserts. Older markers are cleared first, so "once" means once per window (the lock notice)
 * or, with `since` 0, once while rows live (a used one-time link).
 */
export async function claimOnce(db: Db, what: string, at: number, since: number): Promise<boolean> {
  const subject = `once:${what}`;
  await db.kysely.deleteFrom("login_failures").where("subject", "=", subject).where("at", "<=", since).execute();
  const rows = await db.kysely
    .insertInto("login_failures")
    .values({ subject, at, account: null, address: null })
    .onConflict((oc) => oc.doNothing())
    .returning("id")
    .execute();
  return rows.length === 1;
}

/** Whether the marker `once:<what>` exists (newer than `since`). */
export async function claimedOnce(db: Db, what: string, since: number): Promise<boolean> {
  return (await recentLoginFailures(db, `once:${what}`, since, 1)).length > 0;
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
