/**
 * Databases for tests: every storage test runs on SQLite (a temp file) and PostgreSQL (a uniquely
 * named database created for the run and dropped after). When no PostgreSQL server answers, the
 * PostgreSQL half is skipped with a loud notice — except under CI=true, where that is a failure.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import type { Config } from "../../src/config.js";
import { type Db, openDb } from "../../src/storage/db.js";
import { migrateToLatest } from "../../src/storage/migrate.js";
import { migrationsFor } from "../../src/storage/migrations/index.js";

export const ADMIN_URL = process.env.ERRATA_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

let pgReachable: boolean | undefined;

/**
 * `ERRATA_TEST_DIALECTS=sqlite` runs the SQLite half only. `.ci/run` sets it for the Node LTS line
 * reruns: those check the runtime (the native SQLite addon, workers, crypto, fetch), while the
 * database matrix (SQLite and PostgreSQL, through the pure-JavaScript `pg` driver) has already run
 * once in the README's test command on the same commit.
 */
function postgresDeselected(): boolean {
  const only = process.env.ERRATA_TEST_DIALECTS;
  return only !== undefined && !only.split(",").includes("postgres");
}

export async function postgresAvailable(): Promise<boolean> {
  if (postgresDeselected()) return false;
  if (pgReachable !== undefined) return pgReachable;
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("select 1");
    pgReachable = true;
  } catch (err) {
    pgReachable = false;
    if (process.env.CI === "true") {
      throw new Error(`PostgreSQL is required under CI=true but ${ADMIN_URL} is unreachable: ${(err as Error).message}`);
    }
    const bar = "!".repeat(78);
    console.warn(
      `\n${bar}\n!! PostgreSQL tests SKIPPED: ${ADMIN_URL} is unreachable (${(err as Error).message}).\n!! Start a server or set ERRATA_TEST_POSTGRES_URL=postgres://user@host:port/db to run them.\n${bar}\n`,
    );
  } finally {
    await client.end().catch(() => {});
  }
  return pgReachable;
}

export interface TestDatabase {
  dialect: "sqlite" | "postgres";
  config: Config["database"];
  /** The env var value a spawned server needs (DATABASE_URL) or undefined for SQLite in DATA_DIR. */
  databaseUrl?: string;
  dataDir: string;
  drop(): Promise<void>;
}

export function tempDir(prefix = "errata-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Creates an empty database of the given dialect (not migrated). */
export async function createTestDatabase(dialect: "sqlite" | "postgres"): Promise<TestDatabase> {
  const dataDir = tempDir();
  if (dialect === "sqlite") {
    return {
      dialect,
      dataDir,
      config: { kind: "sqlite", file: path.join(dataDir, "errata.db"), synchronous: "NORMAL" },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `errata_test_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    dialect,
    dataDir,
    databaseUrl: url.toString(),
    config: { kind: "postgres", url: url.toString() },
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens and migrates a fresh database; remember to call `close()`. */
export async function openTestDb(dialect: "sqlite" | "postgres"): Promise<{ db: Db; close(): Promise<void>; info: TestDatabase }> {
  const info = await createTestDatabase(dialect);
  const db = openDb(info.config);
  await migrateToLatest(db);
  return {
    db,
    info,
    close: async () => {
      await db.close();
      await info.drop();
    },
  };
}

/**
 * The dialects to run storage tests on. Use with `describe.each(await dialects())`; PostgreSQL is
 * left out (with the notice above) only when unreachable outside CI.
 */
export async function dialects(): Promise<Array<"sqlite" | "postgres">> {
  return (await postgresAvailable()) ? ["sqlite", "postgres"] : ["sqlite"];
}

/** Migrates a fresh database up to and including `name` (a migration test's "before" schema). */
export async function migrateUpTo(db: Db, name: string): Promise<void> {
  const migrator = new Migrator({
    db: db.kysely as unknown as Kysely<unknown>,
    provider: { getMigrations: async () => migrationsFor(db.dialect) },
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}
