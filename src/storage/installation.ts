import { randomBytes } from "node:crypto";
import type { Db } from "./db";

/**
 * The secret that signs sessions. Stored in the database so every process of a scaled-out
 * installation shares it without extra configuration; ERRATA_SECRET overrides it.
 */
export async function getOrCreateSecret(db: Db): Promise<string> {
  const existing = await db.kysely.selectFrom("installation").select("value").where("key", "=", "auth_secret").executeTakeFirst();
  if (existing) return existing.value;
  const secret = randomBytes(32).toString("base64url");
  await db.kysely
    .insertInto("installation")
    .values({ key: "auth_secret", value: secret })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  // Another process may have won the race: read back whatever is stored.
  const row = await db.kysely.selectFrom("installation").select("value").where("key", "=", "auth_secret").executeTakeFirstOrThrow();
  return row.value;
}

/**
 * The installation's operators: the owners of its first organization (the one `/setup` or the
 * first `errata user create` made). Errata has no separate superuser account; whoever owns that
 * organization runs the installation.
 */
export async function isInstallationOperator(db: Db, userId: string): Promise<boolean> {
  const first = await db.kysely.selectFrom("organizations").select("id").orderBy("id").limit(1).executeTakeFirst();
  if (!first) return false;
  const m = await db.kysely
    .selectFrom("members")
    .select("role")
    .where("org_id", "=", first.id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return m?.role === "owner";
}
