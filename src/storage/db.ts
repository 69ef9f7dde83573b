/**
 * Opens the database named by the config: the embedded SQLite file (WAL) or PostgreSQL.
 * This folder is the only code that imports kysely's dialects, better-sqlite3 or pg.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type pg from "pg";
import type { Config } from "../config";
import { openQueueFile, queueFileOf } from "./queue/file";
import type { Database } from "./schema";
import SQLite, { type BetterSqlite3 } from "./sqlite-driver";

export type DialectName = "sqlite" | "postgres";

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** Raw better-sqlite3 handle (SQLite only): the ingest hot path uses prepared statements. */
  sqlite?: BetterSqlite3.Database;
  /**
   * SQLite: the ingest queue's own file (queue-file.ts), with the same table names. Absent on
   * PostgreSQL, whose queue tables are in the one database.
   */
  queueDb?: Db;
  close(): Promise<void>;
}

let pgModule: typeof pg | undefined;

/**
 * The pg driver, loaded when a PostgreSQL database is first opened: on SQLite it would only take
 * ~3 MB of heap in each thread that opens a database (web, digest; measured 27 Nov).
 */
function loadPg(): typeof pg {
  if (pgModule) return pgModule;
  pgModule = createRequire(import.meta.url)("pg") as typeof pg;
  // pg returns int8 (count(*), bigint epoch ms) as strings; every value we store fits in 2^53.
  pgModule.types.setTypeParser(20, (v) => Number(v));
  pgModule.types.setTypeParser(1700, (v) => Number(v));
  return pgModule;
}

export function openDb(database: Config["database"], opts: { readonly?: boolean; poolSize?: number; cacheKiB?: number } = {}): Db {
  if (database.kind === "postgres") {
    const pool = new (loadPg().Pool)({ connectionString: database.url, max: opts.poolSize ?? 10 });
    // An idle client error (server restart) must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    // The pool listens for errors only while a client is idle. A checked-out client whose backend
    // is terminated (pg_terminate_backend, failover) emits 'error' itself: unheard, that is an
    // uncaught exception that kills the thread. Its query fails instead and the pool drops it.
    pool.on("connect", (client) => client.on("error", () => {}));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect: "postgres", close: () => kysely.destroy() };
  }
  fs.mkdirSync(path.dirname(database.file), { recursive: true });
  const sqlite = new SQLite(database.file);
  // WAL: readers never block the writer and the writer never blocks readers (UI vs ingest).
  sqlite.pragma("journal_mode = WAL");
  // NORMAL in WAL mode: a committed transaction survives a process crash (kill -9).
  sqlite.pragma(`synchronous = ${database.synchronous}`);
  // Two threads (ingest in the main thread, digest in the worker) share the file: wait, don't fail.
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = OFF");
  // Page cache (negative = KiB): the UI's connection reads widely and gets 32 MB; the digest
  // thread's working set (hashes, issues, indexes) fits far less, and every MB cached is resident.
  sqlite.pragma(`cache_size = -${opts.cacheKiB ?? 32_000}`);
  const main = sqliteDb(sqlite);
  const queueDb = sqliteDb(openQueueFile(queueFileOf(database.file), database.synchronous));
  return {
    ...main,
    queueDb,
    close: async () => {
      await queueDb.close();
      await main.close();
    },
  };
}

/** A Db over one SQLite connection (the main file, or the queue's). */
function sqliteDb(sqlite: BetterSqlite3.Database): Db {
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingStatements(sqlite) }) });
  return { kysely, dialect: "sqlite", sqlite, close: () => kysely.destroy() };
}

/** Distinct SQL strings kept prepared; the digest path uses a few dozen, the UI a few hundred. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The handle Kysely's SqliteDialect sees: `prepare(sql)` returns a cached statement per SQL text.
 * Kysely prepares every query anew, and preparing costs as much as running a small statement; a
 * better-sqlite3 statement can be run again and again. Least recently used entries are evicted.
 * Not safe for `.stream()` (a statement being iterated is busy); nothing in Errata streams.
 */
function cachingStatements(sqlite: BetterSqlite3.Database): { prepare(sql: string): BetterSqlite3.Statement; close(): void } {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql: string): BetterSqlite3.Statement {
      const hit = cache.get(sql);
      if (hit !== undefined) {
        // Map keeps insertion order: re-inserting marks the entry as most recently used.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit;
      }
      const stmt = sqlite.prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      cache.set(sql, stmt);
      return stmt;
    },
    close(): void {
      cache.clear();
      sqlite.close();
    },
  };
}
