/**
 * SQLite → PostgreSQL (`errata restore <sqlite archive> --into postgres://…`): every table the two
 * schemas share, row by row in batches through Kysely, referenced tables first (Better Auth's
 * `account` and `session` name `user`), values converted to the PostgreSQL column's type (0/1 →
 * boolean, epoch or ISO text → timestamp, text → json); the SQLite blob files become `blobs` rows;
 * afterwards every serial sequence is set past the largest id copied. The target has just been
 * migrated (empty but for rows its migrations seed, which the copy replaces).
 */
import fs from "node:fs";
import path from "node:path";
import { type Kysely, sql } from "kysely";
import type { Db } from "../db";
import { createWeekPartition, EVENT_PARTITION_MS, weekStart } from "../events/partitions";
import type { BetterSqlite3 } from "../sqlite-driver";

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

/** Tables the copy leaves alone: each side's own migration bookkeeping. */
const SKIP = new Set(["kysely_migration", "kysely_migration_lock", "sqlite_sequence"]);
/** Parameters per INSERT stay far under PostgreSQL's 65,535; rows per INSERT bound memory. */
const MAX_PARAMS = 30_000;
const MAX_ROWS = 200;

interface PgColumn {
  name: string;
  type: string;
}

async function pgColumns(k: AnyDb): Promise<Map<string, PgColumn[]>> {
  const r = await sql<{ table_name: string; column_name: string; data_type: string }>`
    SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name, c.ordinal_position`.execute(k);
  const out = new Map<string, PgColumn[]>();
  for (const row of r.rows) {
    const list = out.get(row.table_name) ?? [];
    list.push({ name: row.column_name, type: row.data_type });
    out.set(row.table_name, list);
  }
  return out;
}

/** Referenced tables before the tables whose foreign keys name them. */
async function fkOrder(k: AnyDb, tables: string[]): Promise<string[]> {
  const r = await sql<{ child: string; parent: string }>`
    SELECT cl.relname AS child, pl.relname AS parent FROM pg_constraint con
    JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_class pl ON pl.oid = con.confrelid
    JOIN pg_namespace n ON n.oid = cl.relnamespace
    WHERE con.contype = 'f' AND n.nspname = current_schema()`.execute(k);
  const parents = new Map<string, string[]>();
  for (const { child, parent } of r.rows) if (child !== parent) parents.set(child, [...(parents.get(child) ?? []), parent]);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (t: string, path: Set<string>) => {
    if (placed.has(t) || path.has(t)) return;
    path.add(t);
    for (const p of parents.get(t) ?? []) if (tables.includes(p)) visit(p, path);
    placed.add(t);
    ordered.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return ordered;
}

/** One SQLite value as the PostgreSQL column wants it. */
export function convertValue(v: unknown, pgType: string): unknown {
  if (v === null || v === undefined) return null;
  if (pgType === "boolean") return typeof v === "string" ? v === "true" || v === "1" : Boolean(Number(v));
  if (pgType.startsWith("timestamp") || pgType === "date") {
    if (typeof v === "number" || typeof v === "bigint") {
      const n = Number(v);
      return new Date(n > 1e11 ? n : n * 1000);
    }
    return v;
  }
  if (pgType === "json" || pgType === "jsonb") return typeof v === "string" ? v : JSON.stringify(v);
  if (pgType === "bytea") return typeof v === "string" ? Buffer.from(v) : v;
  if (typeof v === "bigint") return Number(v);
  return v;
}

export interface CopyResult {
  /** rows copied per table */
  rows: Record<string, number>;
  blobs: number;
}

/** Weekly partitions for the weeks the copied events were received in (PostgreSQL's `events` is partitioned). */
async function prepareEventPartitions(k: AnyDb, source: BetterSqlite3.Database): Promise<void> {
  const span = source.prepare("SELECT min(received_at) AS lo, max(received_at) AS hi FROM events").get() as
    | { lo: number | null; hi: number | null }
    | undefined;
  if (!span || span.lo === null || span.hi === null) return;
  for (let w = weekStart(Number(span.lo)); w <= Number(span.hi); w += EVENT_PARTITION_MS) await createWeekPartition(k, w);
}

async function copyTable(k: AnyDb, source: BetterSqlite3.Database, table: string, columns: PgColumn[]): Promise<number> {
  const srcCols = new Set((source.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name));
  const cols = columns.filter((c) => srcCols.has(c.name));
  if (cols.length === 0) return 0;
  const perInsert = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / cols.length)));
  const select = source.prepare(`SELECT ${cols.map((c) => `"${c.name}"`).join(", ")} FROM "${table}"`);
  let batch: Record<string, unknown>[] = [];
  let n = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await k.insertInto(table).values(batch).execute();
    n += batch.length;
    batch = [];
  };
  // iterate(): rows stream from SQLite; only one batch is in memory at a time.
  for (const row of select.iterate() as Iterable<Record<string, unknown>>) {
    const out: Record<string, unknown> = {};
    for (const c of cols) out[c.name] = convertValue(row[c.name], c.type);
    batch.push(out);
    if (batch.length >= perInsert) await flush();
  }
  await flush();
  return n;
}

/** Blob files (DATA_DIR/blobs/<key>) as `blobs` rows, one at a time. */
async function copyBlobFiles(k: AnyDb, blobDir: string): Promise<number> {
  let n = 0;
  async function visit(dir: string, prefix: string): Promise<void> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith(".tmp-")) continue;
      const key = prefix ? `${prefix}/${e.name}` : e.name;
      const file = path.join(dir, e.name);
      if (e.isDirectory()) await visit(file, key);
      else {
        const [data, st] = await Promise.all([fs.promises.readFile(file), fs.promises.stat(file)]);
        await k
          .insertInto("blobs")
          .values({ key, size: data.length, data, created_at: Math.floor(st.mtimeMs) })
          .execute();
        n += 1;
      }
    }
  }
  await visit(blobDir, "");
  return n;
}

/** Every serial/identity sequence past its column's largest value (the queue's past queue_done's ids too). */
async function resetSequences(k: AnyDb, floors: Record<string, number>): Promise<void> {
  const r = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND (column_default LIKE 'nextval(%' OR is_identity = 'YES')`.execute(k);
  for (const { table_name: t, column_name: c } of r.rows) {
    const max = await sql<{ m: number | null }>`SELECT max(${sql.ref(c)})::bigint AS m FROM ${sql.table(t)}`.execute(k);
    const next = Math.max(Number(max.rows[0]?.m ?? 0), floors[t] ?? 0) + 1;
    await sql`SELECT setval(pg_get_serial_sequence(${t}, ${c}), ${next}, false)`.execute(k);
  }
}

/**
 * Copies the SQLite installation (main file, queue file, blob folder) into the migrated
 * PostgreSQL database `target`, in one transaction: a failure leaves the target as migrated.
 */
export async function copySqliteToPostgres(
  main: BetterSqlite3.Database,
  queue: BetterSqlite3.Database,
  blobDir: string,
  target: Db,
): Promise<CopyResult> {
  const k = target.kysely as unknown as AnyDb;
  return k.transaction().execute(async (tx) => {
    const columns = await pgColumns(tx);
    const sources = new Map<string, BetterSqlite3.Database>();
    for (const db of [main, queue]) {
      for (const t of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]) {
        if (SKIP.has(t) || t.startsWith("sqlite_") || !columns.has(t)) continue;
        // The queue file's rows win over the main file's (empty after adoptQueueFile) queue tables.
        if (db === main && sources.has(t)) continue;
        sources.set(t, db);
      }
    }
    const rows: Record<string, number> = {};
    const order = await fkOrder(tx, [...sources.keys()]);
    // What the target's migrations seeded is replaced by the source's rows.
    for (const t of [...order].reverse()) await sql`DELETE FROM ${sql.table(t)}`.execute(tx);
    await prepareEventPartitions(tx, main);
    for (const t of order) rows[t] = await copyTable(tx, sources.get(t) as BetterSqlite3.Database, t, columns.get(t) ?? []);
    const blobs = columns.has("blobs") ? await copyBlobFiles(tx, blobDir) : 0;
    const num = (v: unknown) => Number(v ?? 0);
    const queueFloor = Math.max(
      num(queue.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'queue'").pluck().get()),
      num(main.prepare("SELECT max(id) FROM queue_done").pluck().get()),
    );
    await resetSequences(tx, { queue: queueFloor });
    return { rows, blobs };
  });
}
