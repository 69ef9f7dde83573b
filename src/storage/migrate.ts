import type { Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import type { Db } from "./db";
import { latestMigration, migrationsFor } from "./migrations/index";
import { adoptQueueFile } from "./queue/file";

/** Applies pending migrations; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db: db.kysely as unknown as Kysely<unknown>,
    provider: { getMigrations: async () => migrationsFor(db.dialect) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`Migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
  // SQLite: rows an older version queued in the main file move to the queue's own file.
  adoptQueueFile(db.sqlite, db.queueDb?.sqlite);
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** True when every known migration has been applied (used by /readyz). */
export async function isMigrated(db: Db): Promise<boolean> {
  const migrator = new Migrator({
    db: db.kysely as unknown as Kysely<unknown>,
    provider: { getMigrations: async () => migrationsFor(db.dialect) },
  });
  const list = await migrator.getMigrations();
  return list.length > 0 && list.every((m) => m.executedAt !== undefined) && list.some((m) => m.name === latestMigration);
}
