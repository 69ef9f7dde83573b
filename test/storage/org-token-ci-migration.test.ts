/**
 * Migration 0043 (issue 39): organization tokens made before it, whatever boxes their creator
 * ticked, come out of it as Sentry's `org:ci` (CI's releases, deploys and source maps only);
 * personal tokens keep their scopes (their creator's role narrows them at every call). Both databases.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Db, openDb } from "../../src/storage/db";
import { insertToken } from "../../src/storage/members/tokens";
import { migrateToLatest } from "../../src/storage/migrate";
import { createTestDatabase, dialects, migrateUpTo, type TestDatabase } from "../helpers/test-db";

describe.each(await dialects())("organization tokens narrowed by migration 0043 on %s", (dialect) => {
  let info: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    info = await createTestDatabase(dialect);
    db = openDb(info.config);
  });
  afterAll(async () => {
    await db.close();
    await info.drop();
  });

  test("every organization token becomes org:ci; personal tokens are untouched", async () => {
    await migrateUpTo(db, "0042-issue-daily");
    const made = (name: string, orgId: number | null, scopes: string[]) =>
      insertToken(db, { userId: "u1", orgId, name, tokenHash: `hash-${name}`, tokenPrefix: name, scopes, now: 1 });
    await made("all boxes", 1, ["org:read", "project:write", "member:write", "event:write"]);
    await made("default", 2, ["project:releases", "org:read"]);
    await made("personal", null, ["event:read", "project:write"]);
    await migrateToLatest(db);
    const rows = await db.kysely.selectFrom("api_tokens").select(["name", "scopes"]).orderBy("id").execute();
    expect(rows).toEqual([
      { name: "all boxes", scopes: "org:ci" },
      { name: "default", scopes: "org:ci" },
      { name: "personal", scopes: "event:read project:write" },
    ]);
  });
});
