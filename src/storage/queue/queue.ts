/**
 * The durable ingest queue. Ingest appends accepted request bodies (many per transaction: group
 * commit); digest workers claim batches with a lease, process them and mark them digested in the
 * same transaction that stores the results. A worker that dies mid-batch leaves its rows to be
 * claimed again once the lease expires: at-least-once, made idempotent by the (project, event_id)
 * key.
 *
 * SQLite keeps the queue in a file of its own (queue-file.ts), so ingest never waits for the
 * digest's write lock on the main file. There the digest's transaction records the ids in the main
 * file's `queue_done` (`markDigested`); after its commit the rows leave the queue file
 * (`releaseDigested`); a claim deletes instead of returning rows that `queue_done` names, so a
 * crash between the two commits never digests a row twice. PostgreSQL deletes the rows in the
 * digest's transaction itself.
 */
import { sql } from "kysely";
import type { OutcomeCount } from "../../core/outcomes";
import type { Db } from "../db";
import { chunks, type Tx, writeTx } from "../dialect";
import { addOutcomes, addOutcomesNow } from "../events/outcomes";

export interface QueueInsert {
  projectId: number;
  keyId: number;
  receivedAt: number;
  clientIp: string | null;
  kind: "envelope" | "store";
  body: Buffer;
}

export interface QueueItem extends QueueInsert {
  id: number;
  attempts: number;
}

/**
 * Appends rows in one transaction. Resolves once they are committed (durable). Ingest's outcome
 * counters ride along in the same transaction (`outcomes`), so they cost no write of their own.
 */
export async function enqueueMany(db: Db, rows: QueueInsert[], outcomes: readonly OutcomeCount[] = []): Promise<void> {
  if (rows.length === 0 && outcomes.length === 0) return;
  if (db.sqlite) {
    // Hot path: prepared statements inside one IMMEDIATE transaction, no query building per row.
    // The rows go to the queue file, the counts to the main file: two commits, rows first (a
    // count lost to a crash between them is a statistic; a row is an acknowledged event).
    if (rows.length > 0) preparedEnqueue(queueStore(db)).immediate(rows);
    await addOutcomesNow(db, outcomes);
    return;
  }
  // PostgreSQL: the rows and their bodies are one statement, atomic on its own, so the usual group
  // commit (no outcome counts due) is one round trip instead of BEGIN, ids, rows, bodies, COMMIT.
  if (outcomes.length === 0 && rows.length <= ONE_STATEMENT_ROWS) {
    await insertQueuedPostgres(db.kysely, rows);
    return;
  }
  await db.kysely.transaction().execute(async (tx) => {
    for (const chunk of chunks(rows, ONE_STATEMENT_ROWS)) await insertQueuedPostgres(tx, chunk);
    if (outcomes.length > 0) await addOutcomes(tx, outcomes);
  });
}

/** Rows per PostgreSQL enqueue statement: 6 parameters each, far below the protocol's 65,535. */
const ONE_STATEMENT_ROWS = 2000;

/**
 * PostgreSQL: queue rows and their bodies in one statement. The CTE is materialised, so each row
 * draws its id from the sequence once and both inserts see the same id; a multi-row INSERT's
 * RETURNING order is not promised, which is why the ids are not taken from it. Bodies travel as
 * binary parameters (node-pg sends a Buffer as bytes, not as hex text).
 */
async function insertQueuedPostgres(ex: Db["kysely"] | Tx, rows: QueueInsert[]): Promise<void> {
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map(
      (r) =>
        sql`(${r.projectId}::bigint, ${r.keyId}::bigint, ${r.receivedAt}::bigint, ${r.clientIp}::text, ${r.kind}::text, ${r.body}::bytea)`,
    ),
  );
  await sql`
    WITH input AS MATERIALIZED (
      SELECT nextval(pg_get_serial_sequence('queue', 'id')) AS id, v.*
      FROM (VALUES ${values}) AS v (project_id, key_id, received_at, client_ip, kind, body)),
    queued AS (
      INSERT INTO queue (id, project_id, key_id, received_at, client_ip, kind, available_at, attempts)
      SELECT id, project_id, key_id, received_at, client_ip, kind, ${sql.lit(FRESH_AVAILABLE_AT)}, 0 FROM input)
    INSERT INTO queue_bodies (id, body) SELECT id, body FROM input`.execute(ex);
}

/** Where the queue tables are: the queue file (SQLite) or the one database (PostgreSQL). */
export function queueStore(db: Db): Db {
  return db.queueDb ?? db;
}

type EnqueueTx = { immediate(rows: QueueInsert[]): void };
const enqueueCache = new WeakMap<object, EnqueueTx>();
/** The insert statement and its transaction wrapper, built once per connection. */
function preparedEnqueue(db: Db): EnqueueTx {
  const handle = db.sqlite as NonNullable<Db["sqlite"]>;
  let tx = enqueueCache.get(handle);
  if (!tx) {
    const stmt = handle.prepare<unknown[]>(QUEUE_INSERT_SQL);
    const bodyStmt = handle.prepare<unknown[]>(QUEUE_BODY_INSERT_SQL);
    tx = handle.transaction((rows: QueueInsert[]) => {
      for (const r of rows) bodyStmt.run(stmt.run(r.projectId, r.keyId, r.receivedAt, r.clientIp, r.kind).lastInsertRowid, r.body);
    }) as unknown as EnqueueTx;
    enqueueCache.set(handle, tx);
  }
  return tx;
}

/**
 * `available_at` of a row never claimed: a 6-byte integer (2^40 ms, in 2004: always in the past),
 * the size of every lease deadline, with `attempts` going 0 → 1 (both stored in zero bytes). A
 * claim then keeps the record's size and SQLite overwrites the changed page in place. (It mattered
 * more while the body shared the row: a size change rewrote its whole overflow chain.) Rows queued
 * before this value (available_at 0) are claimed like expired leases.
 */
export const FRESH_AVAILABLE_AT = 2 ** 40;

/** One queue row (project, key, received_at, client_ip, kind); also run by queue-writer.ts. */
export const QUEUE_INSERT_SQL = `INSERT INTO queue (project_id, key_id, received_at, client_ip, kind, available_at, attempts) VALUES (?, ?, ?, ?, ?, ${FRESH_AVAILABLE_AT}, 0)`;
/** Its body (queue id, body), in the same transaction; also run by queue-writer.ts. */
export const QUEUE_BODY_INSERT_SQL = "INSERT INTO queue_bodies (id, body) VALUES (?, ?)";

/**
 * Claims up to `limit` rows whose lease has expired, pushing their availability `leaseMs` into
 * the future. PostgreSQL uses SKIP LOCKED so several workers never take the same rows.
 */
export async function claimBatch(db: Db, now: number, limit: number, leaseMs: number): Promise<QueueItem[]> {
  const until = now + leaseMs;
  if (db.dialect === "postgres") {
    const res = await sql<RawRow>`
      WITH claimed AS (
        UPDATE queue SET available_at = ${until}, attempts = attempts + 1
        WHERE id IN (SELECT id FROM queue WHERE (available_at <= ${now} OR available_at = ${FRESH_AVAILABLE_AT}) ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id, project_id, key_id, received_at, client_ip, kind, attempts)
      SELECT c.*, encode(b.body, 'base64') AS body FROM claimed c LEFT JOIN queue_bodies b ON b.id = c.id`.execute(db.kysely);
    return res.rows.map(toItem).sort((a, b) => a.id - b.id);
  }
  const queue = queueStore(db);
  const claimed = await writeTx(queue, async (tx): Promise<RawRow[]> => {
    // Two index-ordered reads instead of `available_at <= now ORDER BY id`, which made SQLite walk
    // (or sort) the whole queue on every claim: the oldest expired leases (rare; also rows queued
    // before FRESH_AVAILABLE_AT), then never-claimed rows in id order.
    // Fresh rows are claimable whatever the clock says (tests run on small fake clocks); leases
    // on either side of the marker only once they have expired.
    const expired = await selectClaimable(tx, limit, (q) =>
      q.where((eb) =>
        eb.or([
          eb.and([eb("available_at", "<", FRESH_AVAILABLE_AT), eb("available_at", "<=", now)]),
          eb.and([eb("available_at", ">", FRESH_AVAILABLE_AT), eb("available_at", "<=", now)]),
        ]),
      ),
    );
    const fresh =
      expired.length < limit
        ? await selectClaimable(tx, limit - expired.length, (q) => q.where("available_at", "=", FRESH_AVAILABLE_AT))
        : [];
    const rows = await withoutDigested(
      db,
      tx,
      [...expired, ...fresh].sort((a, b) => Number(a.id) - Number(b.id)),
    );
    if (rows.length === 0) return [];
    await tx
      .updateTable("queue")
      .set({ available_at: until, attempts: sql`attempts + 1` })
      .where(
        "id",
        "in",
        rows.map((r) => r.id),
      )
      .execute();
    return rows.map((r) => ({ ...r, attempts: r.attempts + 1 }));
  });
  if (claimed.length === 0) return [];
  // Bodies are read after the lease committed, outside the queue file's write lock (ingest's
  // commits wait for that lock; 100 bodies of 50 KB are megabytes of overflow pages). A body never
  // changes once queued, and the leased rows are this claim's alone.
  const bodies = await queue.kysely
    .selectFrom("queue_bodies")
    .select(["id", "body"])
    .where(
      "id",
      "in",
      claimed.map((r) => r.id),
    )
    .execute();
  const byId = new Map(bodies.map((b) => [Number(b.id), b.body]));
  // A missing body (never expected) reads as an empty one: the digest then drops the row as
  // unreadable instead of claiming it again and again.
  return claimed.map((r) => toItem({ ...r, body: byId.get(Number(r.id)) ?? null }));
}

type ClaimQuery = ReturnType<typeof claimQuery>;
function claimQuery(tx: Tx) {
  return tx.selectFrom("queue").select(["queue.id", "project_id", "key_id", "received_at", "client_ip", "kind", "attempts"]);
}

/** Claimable rows without their bodies (SQLite: read after the lease commits). */
async function selectClaimable(tx: Tx, limit: number, where: (q: ClaimQuery) => ClaimQuery): Promise<RawRow[]> {
  const rows = await where(claimQuery(tx)).orderBy("available_at").orderBy("queue.id").limit(limit).execute();
  return rows.map((r) => ({ ...r, body: null }));
}

/**
 * SQLite claim, inside the queue file's transaction: rows whose results the main file already
 * holds (the digest committed, then crashed or failed before deleting them) are deleted here
 * instead of being digested again.
 */
async function withoutDigested(db: Db, tx: Tx, rows: RawRow[]): Promise<RawRow[]> {
  const main = db.sqlite;
  if (rows.length === 0 || !db.queueDb || !main) return rows;
  // The raw handle, synchronously: through Kysely this read would wait for the main connection
  // (a periodic job's transaction) while holding the queue file's lock that ingest waits for.
  const doneIds = (
    main
      .prepare("SELECT id FROM queue_done WHERE id IN (SELECT value FROM json_each(?))")
      .pluck()
      .all(JSON.stringify(rows.map((r) => Number(r.id)))) as number[]
  ).map(Number);
  if (doneIds.length === 0) return rows;
  await deleteQueued(tx, doneIds);
  releasedIds(db).push(...doneIds);
  const skip = new Set(doneIds);
  return rows.filter((r) => !skip.has(Number(r.id)));
}

/** Removes rows and their bodies. */
export async function deleteQueued(tx: Tx, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.deleteFrom("queue").where("id", "in", ids).execute();
  await tx.deleteFrom("queue_bodies").where("id", "in", ids).execute();
}

/**
 * Inside the transaction that stored the rows' results (`tx` on the main database): PostgreSQL
 * deletes them there; SQLite records them in `queue_done` (their rows are in the queue file,
 * which this transaction cannot commit atomically with the main file) and forgets the ids whose
 * rows have left the queue file since, for good (queue ids are never reused).
 */
export async function markDigested(db: Db, tx: Tx, ids: number[]): Promise<void> {
  if (!db.queueDb) return deleteQueued(tx, ids);
  if (ids.length > 0) {
    for (const chunk of chunks(ids, 500)) {
      await tx
        .insertInto("queue_done")
        .values(chunk.map((id) => ({ id })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }
  const released = releasedIds(db);
  const gone = released.splice(0, released.length);
  for (const chunk of chunks(gone, 500)) await tx.deleteFrom("queue_done").where("id", "in", chunk).execute();
  // What a crash left behind: every id below the queue file's lowest row has left it.
  await tx.deleteFrom("queue_done").where("id", "<", lowestLiveId(db.queueDb)).execute();
}

/**
 * Claimed rows handed back undigested, claimable again at their `availableAt` (a check-in waiting
 * for its monitor, src/pipeline/process-items.ts). `attempts` keeps counting.
 */
export async function postponeQueued(db: Db, rows: Array<{ id: number; availableAt: number }>): Promise<void> {
  if (rows.length === 0) return;
  await writeTx(queueStore(db), async (tx) => {
    for (const r of rows) await tx.updateTable("queue").set({ available_at: r.availableAt }).where("id", "=", r.id).execute();
  });
}

/**
 * After that transaction committed (SQLite): the rows leave the queue file. If this fails (the
 * file busy for seconds, a crash), the rows' leases expire and the next claim deletes them.
 */
export async function releaseDigested(db: Db, ids: number[]): Promise<void> {
  if (!db.queueDb || ids.length === 0) return;
  await writeTx(db.queueDb, (tx) => deleteQueued(tx, ids));
  releasedIds(db).push(...ids);
}

/** Ids recorded in `queue_done` whose rows have left the queue file, per main connection. */
const released = new WeakMap<object, number[]>();
function releasedIds(db: Db): number[] {
  const key = db.sqlite ?? db;
  let list = released.get(key);
  if (!list) {
    list = [];
    released.set(key, list);
  }
  return list;
}

/**
 * No row below this id is in the queue file, now or later: its lowest row, or past the last id it
 * ever handed out when it is empty (AUTOINCREMENT: ids only grow).
 */
function lowestLiveId(queue: Db): number {
  const handle = queue.sqlite as NonNullable<Db["sqlite"]>;
  const lowest = handle.prepare("SELECT min(id) FROM queue").pluck().get();
  if (lowest !== null && lowest !== undefined) return Number(lowest);
  const seq = handle.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'queue'").pluck().get();
  return Number(seq ?? 0) + 1;
}

/**
 * An upper bound of the queue depth in O(log n): the id range of the rows still queued. Rows are
 * mostly deleted in id order, so it is close; backpressure confirms with `queueDepth` when it
 * matters.
 */
export async function queueDepthEstimate(db: Db): Promise<number> {
  const row = await queueStore(db)
    .kysely.selectFrom("queue")
    .select((eb) => [eb.fn.max("id").as("hi"), eb.fn.min("id").as("lo")])
    .executeTakeFirst();
  if (!row || row.hi === null || row.lo === null) return 0;
  return Number(row.hi) - Number(row.lo) + 1;
}

export async function queueDepth(db: Db): Promise<number> {
  const row = await queueStore(db)
    .kysely.selectFrom("queue")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

interface RawRow {
  id: number;
  project_id: number;
  key_id: number;
  received_at: number;
  client_ip: string | null;
  kind: string;
  /** bytes (SQLite), base64 text (the PostgreSQL claim), null when the body row is missing */
  body: Buffer | Uint8Array | string | null;
  attempts: number;
}

function toItem(r: RawRow): QueueItem {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    keyId: Number(r.key_id),
    receivedAt: Number(r.received_at),
    clientIp: r.client_ip,
    kind: r.kind === "store" ? "store" : "envelope",
    body: bodyOf(r.body),
    attempts: Number(r.attempts),
  };
}

/**
 * PostgreSQL claims read bodies as base64 text. node-pg reads results as text, where a bytea is
 * hex (twice its size, then decoded in JS); base64 is a third larger, and the claim's client CPU
 * fell from 46-72 to 28-49 µs per 8.5 KB event (bench:digest --postgres). PostgreSQL breaks the
 * text into 76-character lines, which Buffer ignores.
 */
function bodyOf(body: RawRow["body"]): Buffer {
  if (body === null) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body, "base64");
  return Buffer.isBuffer(body) ? body : Buffer.from(body);
}
