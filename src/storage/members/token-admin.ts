import type { Db } from "../db";

/** A token as its settings list shows it: never the secret, only its first characters. */
export interface TokenListRow {
  id: number;
  userId: string;
  orgId: number | null;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
}

/** Organization tokens (`orgId`) or a user's personal tokens (`userId`, no org), newest first. */
export async function listTokens(db: Db, by: { orgId: number } | { userId: string }): Promise<TokenListRow[]> {
  let q = db.kysely
    .selectFrom("api_tokens")
    .select(["id", "user_id", "org_id", "name", "token_prefix", "scopes", "created_at", "last_used_at", "expires_at"]);
  q = "orgId" in by ? q.where("org_id", "=", by.orgId) : q.where("user_id", "=", by.userId).where("org_id", "is", null);
  const rows = await q.orderBy("id", "desc").limit(500).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    userId: r.user_id,
    orgId: r.org_id === null ? null : Number(r.org_id),
    name: r.name,
    prefix: r.token_prefix,
    scopes: r.scopes.split(" ").filter(Boolean),
    createdAt: Number(r.created_at),
    lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  }));
}

export async function deleteToken(db: Db, id: number): Promise<void> {
  await db.kysely.deleteFrom("api_tokens").where("id", "=", id).execute();
}

/** Deletes every personal token of the user (never an organization token); returns how many. */
export async function deletePersonalTokens(db: Db, userId: string): Promise<number> {
  const res = await db.kysely.deleteFrom("api_tokens").where("user_id", "=", userId).where("org_id", "is", null).executeTakeFirst();
  return Number(res.numDeletedRows);
}
