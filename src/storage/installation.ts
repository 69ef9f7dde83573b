import { randomBytes } from "node:crypto";
import type { Db } from "./db";
import type { MembersTable } from "./schema";

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
 * The viewer's role in the installation's first organization (the one `/setup` or the first
 * `errata user create` made), or null. Errata has no separate superuser account: the permission
 * table's `installation.*` rows are asked with this role, so that organization's owners run the
 * installation.
 */
export async function firstOrgRole(db: Db, userId: string): Promise<MembersTable["role"] | null> {
  const first = await db.kysely.selectFrom("organizations").select("id").orderBy("id").limit(1).executeTakeFirst();
  if (!first) return null;
  const m = await db.kysely
    .selectFrom("members")
    .select("role")
    .where("org_id", "=", first.id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return m?.role ?? null;
}
