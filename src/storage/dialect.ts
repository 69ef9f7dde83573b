/**
 * The few places where SQLite and PostgreSQL differ. Everything else is one Kysely query.
 */
import { type ColumnDataType, type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from "kysely";
import type { Db, DialectName } from "./db";
import type { Database } from "./schema";

export type Tx = Kysely<Database>;

/**
 * A write transaction. On SQLite it is `BEGIN IMMEDIATE`: a deferred transaction that reads and
 * then writes fails with SQLITE_BUSY_SNAPSHOT when another thread wrote in between, whatever the
 * busy timeout. Kysely does not emit IMMEDIATE, so we drive the connection ourselves.
 */
export async function writeTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (db.dialect === "postgres") return db.kysely.transaction().execute(fn);
  return db.kysely.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
  });
}

export function blobType(dialect: DialectName): ColumnDataType {
  return dialect === "postgres" ? "bytea" : "blob";
}

/** An auto-increment integer primary key named `id`. */
export function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: DialectName): CreateTableBuilder<T, "id"> {
  return dialect === "postgres"
    ? table.addColumn("id", "bigserial", (c) => c.primaryKey())
    : table.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

/** Is this error a unique-constraint violation (either dialect)? */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  return e.code === "23505" || e.code === "SQLITE_CONSTRAINT_UNIQUE" || e.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * PostgreSQL aborted the transaction to break a deadlock (40P01) or a serialization conflict
 * (40001): nothing of it was written, and running it again is safe.
 */
export function isTransientTxError(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === "40P01" || code === "40001";
}

/** Rows per multi-row INSERT by default: well under both dialects' bound-parameter limits. */
export const INSERT_CHUNK = 200;

/** `rows` in slices of `size`, one multi-row statement each. */
export function chunks<T>(rows: T[], size = INSERT_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * Is this connection or transaction PostgreSQL? For the few writes that differ by dialect but are
 * handed only a transaction (the callers' signatures stay dialect-free).
 */
export function isPostgres(tx: Tx): boolean {
  return tx.getExecutor().adapter instanceof PostgresAdapter;
}
