import type { Db } from "../db";

export interface TokenRow {
  id: number;
  userId: string;
  orgId: number | null;
  name: string;
  scopes: string[];
  expiresAt: number | null;
}

export async function insertToken(
  db: Db,
  t: {
    userId: string;
    orgId: number | null;
    name: string;
    tokenHash: string;
    tokenPrefix: string;
    scopes: string[];
    now: number;
    /** epoch ms; null or absent: never expires */
    expiresAt?: number | null;
  },
): Promise<number> {
  const row = await db.kysely
    .insertInto("api_tokens")
    .values({
      user_id: t.userId,
      org_id: t.orgId,
      name: t.name,
      token_hash: t.tokenHash,
      token_prefix: t.tokenPrefix,
      scopes: t.scopes.join(" "),
      created_at: t.now,
      last_used_at: null,
      expires_at: t.expiresAt ?? null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findTokenByHash(db: Db, tokenHash: string): Promise<TokenRow | undefined> {
  const row = await db.kysely
    .selectFrom("api_tokens")
    .select(["id", "user_id", "org_id", "name", "scopes", "expires_at"])
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: Number(row.id),
    userId: row.user_id,
    orgId: row.org_id === null ? null : Number(row.org_id),
    name: row.name,
    scopes: row.scopes.split(" ").filter(Boolean),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  };
}

export async function touchToken(db: Db, id: number, now: number): Promise<void> {
  await db.kysely.updateTable("api_tokens").set({ last_used_at: now }).where("id", "=", id).execute();
}

export async function findUserProfile(db: Db, userId: string): Promise<{ id: string; email: string; name: string } | undefined> {
  // Better Auth's `user` table is not in our typed schema; a narrow raw read keeps it that way.
  const k = db.kysely as unknown as import("kysely").Kysely<{ user: { id: string; email: string; name: string } }>;
  return k.selectFrom("user").select(["id", "email", "name"]).where("id", "=", userId).executeTakeFirst();
}
