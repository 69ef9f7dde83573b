/**
 * An archive from an older Errata (its schema a migration behind) restores: the normal migrations
 * bring it up to this code's schema, and the counts still agree — on SQLite and on PostgreSQL.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, test } from "vitest";
import { createBackup } from "../../src/storage/backup/create-backup";
import { openDb } from "../../src/storage/db";
import { latestMigration } from "../../src/storage/migrations/index";
import { createTestDatabase, dialects, migrateUpTo, tempDir } from "../helpers/test-db";
import { envOf, errata, open } from "./helpers";

const OLDER = "0053-audit-log";

describe.each(await dialects())("restoring an older schema (%s)", (dialect) => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => {});
  });

  test("is migrated to this code's schema", async () => {
    const source = await createTestDatabase(dialect);
    cleanup.push(() => source.drop());
    const db = openDb(source.config);
    try {
      await migrateUpTo(db, OLDER);
      await db.kysely.insertInto("organizations").values({ slug: "old", name: "Old", created_at: Date.now() }).execute();
    } finally {
      await db.close();
    }
    const out = path.join(tempDir("errata-older-"), "older.tar.gz");
    cleanup.push(async () => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
    const made = await createBackup({ database: source.config, dataDir: source.dataDir, out, errataVersion: "0.0.9" });
    expect(made.manifest.schema).toBe(OLDER);
    expect(made.manifest.counts.organizations).toBe(1);

    const target = await createTestDatabase(dialect);
    cleanup.push(() => target.drop());
    const r = await errata(envOf(target), "restore", out, "--into", target.databaseUrl ?? target.dataDir);
    expect(r.code, r.stderr).toBe(0);
    const restored = open(target);
    try {
      const last = await sql<{ name: string }>`SELECT max(name) AS name FROM kysely_migration`.execute(restored.kysely);
      expect(last.rows[0]?.name).toBe(latestMigration);
      expect(await restored.kysely.selectFrom("organizations").select("slug").execute()).toEqual([{ slug: "old" }]);
      // 0054's table exists now: the restored installation records backups.
      expect(await restored.kysely.selectFrom("backup_runs").selectAll().execute()).toEqual([]);
    } finally {
      await restored.close();
    }
  }, 120_000);
});
