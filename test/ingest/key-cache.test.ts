import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db.js";
import { writeTx } from "../../src/storage/dialect.js";
import { createKeyCache, invalidate } from "../../src/storage/orgs/key-cache.js";
import { insertKey, insertProject } from "../../src/storage/orgs/projects.js";
import { dialects, openTestDb } from "../helpers/test-db.js";

describe.each(await dialects())("ingest key cache on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let projectId: number;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    projectId = await writeTx(db, async (tx) => {
      const org = await tx
        .insertInto("organizations")
        .values({ slug: "o", name: "O", created_at: 1 })
        .returning("id")
        .executeTakeFirstOrThrow();
      const p = await insertProject(tx, { orgId: Number(org.id), slug: "p", name: "P", platform: "node", now: 1 });
      await insertKey(tx, { projectId: p.id, publicKey: "k1", label: "a", now: 1 });
      return p.id;
    });
  });
  afterAll(async () => close());

  test("hits need no database; entries expire; invalidate() drops them", async () => {
    let t = 1_000;
    const cache = createKeyCache(db, { positiveTtlMs: 10_000, negativeTtlMs: 2_000, now: () => t });
    expect(cache.peek("k1")).toBeUndefined();
    expect(await cache.get("k1")).toMatchObject({ projectId, active: true });
    expect(cache.peek("k1")).toMatchObject({ projectId });
    expect(await cache.get("nope")).toBeNull();
    expect(cache.peek("nope")).toBeNull();

    // Disable the key: the cached positive answer stands until it expires or is invalidated.
    await db.kysely.updateTable("project_keys").set({ active: 0 }).where("public_key", "=", "k1").execute();
    expect(cache.peek("k1")?.active).toBe(true);
    invalidate("k1");
    expect(cache.peek("k1")).toBeUndefined();
    expect((await cache.get("k1"))?.active).toBe(false);

    t += 2_001;
    expect(cache.peek("nope")).toBeUndefined();
    t += 10_000;
    expect(cache.peek("k1")).toBeUndefined();
    expect(await cache.projectExists(projectId)).toBe(true);
    expect(await cache.projectExists(projectId + 1000)).toBe(false);
    cache.close();
  });

  test("concurrent misses share one lookup", async () => {
    const cache = createKeyCache(db);
    const [a, b] = await Promise.all([cache.get("k1"), cache.get("k1")]);
    expect(a).toBe(b);
    cache.close();
  });
});
