/** Password reset links (0021): hashed, single use, expiring. */
import type { Db } from "../db";
import type { Tx } from "../dialect";

export async function insertPasswordReset(tx: Tx, r: { userId: string; tokenHash: string; now: number; expiresAt: number }): Promise<void> {
  await tx
    .insertInto("password_resets")
    .values({ user_id: r.userId, token_hash: r.tokenHash, created_at: r.now, expires_at: r.expiresAt, used_at: null })
    .execute();
}

/** Links asked for this user since `since` (a per-account cap on mail). */
export async function countPasswordResetsSince(c: Db | Tx, userId: string, since: number): Promise<number> {
  const k = "kysely" in c ? c.kysely : c;
  const row = await k
    .selectFrom("password_resets")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .where("created_at", ">=", since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The still-usable link with this hash, or undefined (unknown, used or expired). */
export async function findUsablePasswordReset(
  c: Db | Tx,
  tokenHash: string,
  now: number,
): Promise<{ id: number; userId: string } | undefined> {
  const k = "kysely" in c ? c.kysely : c;
  const row = await k
    .selectFrom("password_resets")
    .select(["id", "user_id"])
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return row ? { id: Number(row.id), userId: row.user_id } : undefined;
}

/** Marks the link used; false when another request used it first. Every other link of the user dies too. */
export async function claimPasswordReset(tx: Tx, id: number, userId: string, now: number): Promise<boolean> {
  const res = await tx
    .updateTable("password_resets")
    .set({ used_at: now })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return false;
  await tx.updateTable("password_resets").set({ used_at: now }).where("user_id", "=", userId).where("used_at", "is", null).execute();
  return true;
}

/** When the user's password was last reset by a link (the newest used link), or null. */
export async function lastPasswordResetAt(c: Db | Tx, userId: string): Promise<number | null> {
  const k = "kysely" in c ? c.kysely : c;
  const row = await k
    .selectFrom("password_resets")
    .select((eb) => eb.fn.max("used_at").as("at"))
    .where("user_id", "=", userId)
    .where("used_at", "is not", null)
    .executeTakeFirst();
  return row?.at == null ? null : Number(row.at);
}
