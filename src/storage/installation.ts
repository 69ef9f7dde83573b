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
