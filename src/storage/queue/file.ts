/**
 * SQLite: the ingest queue lives in a file of its own beside the main one (`errata.db` →
 * `errata.queue.db`). SQLite has one writer per file; with the queue in the main file every
 * group commit of ingest waited for the digest's write transaction (tens of ms under load, more
 * while a nice-10 digest thread is preempted holding the lock). Now ingest's writer thread and the
 * digest's claims and deletes share only this small file, and the digest's long transaction
 * locks only the main one.
 *
 * Exactly-once without a two-file transaction (each attached file commits on its own in WAL mode,
 * so a crash can land one and not the other) — see queue.ts: the digest's main-file transaction
 * records the digested queue ids in `queue_done`; the rows leave this file afterwards; a claim
 * skips (and deletes) rows that `queue_done` names. That needs ids never reused while
 * `queue_done` may name them: the table is AUTOINCREMENT, and its sequence is seeded above every
 * id the main file knows (`adoptQueueFile`), so a queue file deleted or restored from an older
 * backup cannot hand out an id again.
 *
 * It takes raw connections, not a `Db`: `db.ts` opens this file, so this module must not import it back.
 *
 * PostgreSQL keeps the queue in its one database: its writers do not share a single lock.
 */
import path from "node:path";
import SQLite, { type BetterSqlite3 } from "../sqlite-driver";

/** `data/errata.db` → `data/errata.queue.db`; in-memory databases get an in-memory queue. */
export function queueFileOf(file: string): string {
  if (file === ":memory:" || file === "") return ":memory:";
  const ext = path.extname(file);
  return ext ? `${file.slice(0, -ext.length)}.queue${ext}` : `${file}.queue`;
}

/** The same tables (and names) as the main file's queue of migrations 0001 and 0023. */
const QUEUE_FILE_SCHEMA = `
CREATE TABLE IF NOT EXISTS queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  client_ip TEXT,
  kind TEXT NOT NULL,
  available_at INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS queue_available ON queue (available_at, id);
CREATE TABLE IF NOT EXISTS queue_bodies (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
`;

/**
 * Page cache of a queue-file connection, KiB. Its working set is the tail of one index; a body is
 * read once, from the OS's cache, so caching bodies only costs resident memory (every connection
 * of every thread has its own cache).
 */
export const QUEUE_CACHE_KIB = 512;

/** Opens (and creates) the queue file with the main connection's durability. */
export function openQueueFile(file: string, synchronous: string): BetterSqlite3.Database {
  const handle = new SQLite(file);
  handle.pragma("journal_mode = WAL");
  handle.pragma(`synchronous = ${synchronous}`);
  handle.pragma("busy_timeout = 5000");
  handle.pragma(`cache_size = -${QUEUE_CACHE_KIB}`);
  // Raw SDK bodies (secrets before scrubbing) live here: deleted rows are overwritten with zeros
  // (ON, not FAST: bodies over one page live in overflow pages). See secure-erase.ts.
  handle.pragma("secure_delete = ON");
  handle.exec(QUEUE_FILE_SCHEMA);
  return handle;
}

/**
 * After the main file's migrations (SQLite): moves rows an older version queued in the main file
 * into the queue file, keeping their ids, and seeds the queue file's id sequence above every id
 * the main file has seen. The copy commits before the main file's rows are deleted: a crash in
 * between repeats the copy, which the kept ids make a no-op (INSERT OR IGNORE).
 */
export function adoptQueueFile(main: BetterSqlite3.Database | undefined, queue: BetterSqlite3.Database | undefined): number {
  if (!main || !queue) return 0;
  const leftovers = main
    .prepare(
      "SELECT q.id, q.project_id, q.key_id, q.received_at, q.client_ip, q.kind, q.available_at, q.attempts, b.body FROM queue q LEFT JOIN queue_bodies b ON b.id = q.id ORDER BY q.id",
    )
    .all() as Array<Record<string, unknown> & { id: number; body: Buffer | null }>;
  if (leftovers.length > 0) {
    const insert = queue.prepare(
      "INSERT OR IGNORE INTO queue (id, project_id, key_id, received_at, client_ip, kind, available_at, attempts) VALUES (@id, @project_id, @key_id, @received_at, @client_ip, @kind, @available_at, @attempts)",
    );
    const insertBody = queue.prepare("INSERT OR IGNORE INTO queue_bodies (id, body) VALUES (?, ?)");
    queue
      .transaction(() => {
        for (const r of leftovers) {
          const { body, ...row } = r;
          insert.run(row);
          if (body !== null) insertBody.run(r.id, body);
        }
      })
      .immediate();
    // Raw bodies: zeroed as they leave the main file, on this connection only for this delete.
    const was = Number(main.pragma("secure_delete", { simple: true }));
    main.pragma("secure_delete = ON");
    try {
      main
        .transaction(() => {
          main.prepare("DELETE FROM queue").run();
          main.prepare("DELETE FROM queue_bodies").run();
        })
        .immediate();
    } finally {
      main.pragma(`secure_delete = ${was}`);
    }
  }
  seedQueueIds(main, queue);
  return leftovers.length;
}

/** The queue file's AUTOINCREMENT sequence ≥ the largest queue id the main file has seen. */
function seedQueueIds(main: BetterSqlite3.Database, queue: BetterSqlite3.Database): void {
  const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
  const mainSeq = num(main.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'queue'").pluck().get());
  const doneMax = num(main.prepare("SELECT max(id) FROM queue_done").pluck().get());
  const floor = Math.max(mainSeq, doneMax);
  queue
    .transaction(() => {
      const seq = num(queue.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'queue'").pluck().get());
      if (seq >= floor) return;
      // sqlite_sequence has a row for the table once it has held a row; before that, insert one.
      const updated = queue.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'queue'").run(floor).changes;
      if (updated === 0) queue.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('queue', ?)").run(floor);
    })
    .immediate();
}
