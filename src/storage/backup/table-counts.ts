/**
 * What a backup counts (manifest `counts`) and a restore checks: rows of the main tables, and the
 * schema version (the last migration applied). Tables a given schema lacks count as absent.
 */
import { type Kysely, sql } from "kysely";
import type { BetterSqlite3 } from "../sqlite-driver";

/** The main tables, by their SQL names (Better Auth's `user` holds the accounts members belong to). */
export const COUNTED_TABLES = [
  "organizations",
  "members",
  "user",
  "projects",
  "project_keys",
  "api_tokens",
  "issues",
  "events",
  "alert_rules",
  "artifact_bundles",
  "attachments",
  "replay_segments",
] as const;

/** Rows per counted table through one SQLite connection (a snapshot file). */
export function countSqlite(handle: BetterSqlite3.Database): Record<string, number> {
  const present = new Set(
    (handle.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).map((n) => n.toLowerCase()),
  );
  const out: Record<string, number> = {};
  for (const t of COUNTED_TABLES) {
    if (present.has(t)) out[t] = Number(handle.prepare(`SELECT count(*) FROM "${t}"`).pluck().get());
  }
  return out;
}

/** The queue's rows (acknowledged, not yet digested) in a queue file. */
export function countSqliteQueue(handle: BetterSqlite3.Database): number {
  return Number(handle.prepare("SELECT count(*) FROM queue").pluck().get());
}

export function sqliteSchema(handle: BetterSqlite3.Database): string {
  const has = handle.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get();
  if (!has) return "";
  return String(handle.prepare("SELECT max(name) FROM kysely_migration").pluck().get() ?? "");
}

/** Rows per counted table (and `blobs`, `queue`) on PostgreSQL, in the caller's transaction or connection. */
export async function countPostgres<DB>(k: Kysely<DB>): Promise<Record<string, number>> {
  const tables = await sql<{
    name: string;
  }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`.execute(k);
  const present = new Set(tables.rows.map((r) => r.name));
  const out: Record<string, number> = {};
  for (const t of [...COUNTED_TABLES, "blobs", "queue"]) {
    if (!present.has(t)) continue;
    const r = await sql<{ n: number }>`SELECT count(*)::bigint AS n FROM ${sql.table(t)}`.execute(k);
    out[t] = Number(r.rows[0]?.n ?? 0);
  }
  return out;
}

export async function postgresSchema<DB>(k: Kysely<DB>): Promise<string> {
  const has = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'kysely_migration'`.execute(
    k,
  );
  if (!has.rows[0]?.n) return "";
  const r = await sql<{ name: string | null }>`SELECT max(name) AS name FROM kysely_migration`.execute(k);
  return r.rows[0]?.name ?? "";
}

/** Tables in the current schema of a PostgreSQL database (a restore target must have none). */
export async function postgresTableCount<DB>(k: Kysely<DB>): Promise<number> {
  const r = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema()`.execute(k);
  return Number(r.rows[0]?.n ?? 0);
}
