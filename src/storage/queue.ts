/**
 * The durable ingest queue. Ingest appends accepted request bodies (many per transaction: group
 * commit); digest workers claim batches with a lease, process them and delete them in the same
 * transaction that stores the results. A worker that dies mid-batch leaves its rows to be claimed
 * again once the lease expires: at-least-once, made idempotent by the (project, event_id) key.
 */
import { sql } from "kysely";
import type { OutcomeCount } from "../core/outcomes";
import type { Db } from "./db";
import { type Tx, writeTx } from "./dialect";
import { addOutcomes, addOutcomesSqlite } from "./outcomes";

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
    preparedEnqueue(db).immediate(rows, outcomes);
    return;
  }
  await db.kysely.transaction().execute(async (tx) => {
    if (rows.length > 0) {
      await tx
        .insertInto("queue")
        .values(
          rows.map((r) => ({
            project_id: r.projectId,
            key_id: r.keyId,
            received_at: r.receivedAt,
            client_ip: r.clientIp,
            kind: r.kind,
            body: r.body,
            available_at: FRESH_AVAILABLE_AT,
            attempts: 0,
          })),
        )
        .execute();
    }
    if (outcomes.length > 0) await addOutcomes(tx, outcomes);
  });
}

type EnqueueTx = { immediate(rows: QueueInsert[], outcomes: readonly OutcomeCount[]): void };
const enqueueCache = new WeakMap<object, EnqueueTx>();
/** The insert statement and its transaction wrapper, built once per connection. */
function preparedEnqueue(db: Db): EnqueueTx {
  const handle = db.sqlite as NonNullable<Db["sqlite"]>;
  let tx = enqueueCache.get(handle);
  if (!tx) {
    const stmt = preparedInsert(db);
    tx = handle.transaction((rows: QueueInsert[], outcomes: readonly OutcomeCount[]) => {
      for (const r of rows) stmt.run(r.projectId, r.keyId, r.receivedAt, r.clientIp, r.kind, r.body);
      if (outcomes.length > 0) addOutcomesSqlite(handle, outcomes);
    }) as unknown as EnqueueTx;
    enqueueCache.set(handle, tx);
  }
  return tx;
}

/**
 * `available_at` of a row never claimed. SQLite stores an integer in the fewest bytes that hold it
 * and stores a row's columns in order, so `available_at` and `attempts` sit after the body, at the
 * end of its overflow chain. A claim that changes the record's size (0 → a 6-byte deadline)
 * rewrites the whole row, body included (measured: ~200 µs per 8 KB row, more than digesting it).
 * Born with a 6-byte value (2^40 ms, in 2004: always in the past) and `attempts` going 0 → 1 (both
 * stored in zero bytes), the record keeps its size and SQLite overwrites the two changed pages in
 * place. Rows queued before this value (available_at 0) are claimed like expired leases.
 */
export const FRESH_AVAILABLE_AT = 2 ** 40;

/** One queue row (project, key, received_at, client_ip, kind, body); also run by queue-writer.ts. */
export const QUEUE_INSERT_SQL = `INSERT INTO queue (project_id, key_id, received_at, client_ip, kind, body, available_at, attempts) VALUES (?, ?, ?, ?, ?, ?, ${FRESH_AVAILABLE_AT}, 0)`;

type InsertStatement = { run: (...args: unknown[]) => unknown };
const insertCache = new WeakMap<object, InsertStatement>();
function preparedInsert(db: Db): InsertStatement {
  const handle = db.sqlite as NonNullable<Db["sqlite"]>;
  let stmt = insertCache.get(handle);
  if (!stmt) {
    const prepared = handle.prepare<unknown[]>(QUEUE_INSERT_SQL);
    insertCache.set(handle, prepared);
    stmt = prepared;
  }
  return stmt;
}

/**
 * Claims up to `limit` rows whose lease has expired, pushing their availability `leaseMs` into
 * the future. PostgreSQL uses SKIP LOCKED so several workers never take the same rows.
 */
export async function claimBatch(db: Db, now: number, limit: number, leaseMs: number): Promise<QueueItem[]> {
  const until = now + leaseMs;
  if (db.dialect === "postgres") {
    const res = await sql<RawRow>`
      UPDATE queue SET available_at = ${until}, attempts = attempts + 1
      WHERE id IN (SELECT id FROM queue WHERE (available_at <= ${now} OR available_at = ${FRESH_AVAILABLE_AT}) ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id, project_id, key_id, received_at, client_ip, kind, body, attempts`.execute(db.kysely);
    return res.rows.map(toItem).sort((a, b) => a.id - b.id);
  }
  return writeTx(db, async (tx) => {
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
    const rows = [...expired, ...fresh].sort((a, b) => Number(a.id) - Number(b.id));
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
    return rows.map((r) => toItem({ ...r, attempts: r.attempts + 1 }));
  });
}

type ClaimQuery = ReturnType<typeof claimQuery>;
function claimQuery(tx: Tx) {
  return tx.selectFrom("queue").select(["id", "project_id", "key_id", "received_at", "client_ip", "kind", "body", "attempts"]);
}

async function selectClaimable(tx: Tx, limit: number, where: (q: ClaimQuery) => ClaimQuery): Promise<RawRow[]> {
  return where(claimQuery(tx)).orderBy("available_at").orderBy("id").limit(limit).execute();
}

/** Removes processed rows; call inside the transaction that stored their results. */
export async function deleteQueued(tx: Tx, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.deleteFrom("queue").where("id", "in", ids).execute();
}

/**
 * An upper bound of the queue depth in O(log n): the id range of the rows still queued. Rows are
 * mostly deleted in id order, so it is close; backpressure confirms with `queueDepth` when it
 * matters.
 */
export async function queueDepthEstimate(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom("queue")
    .select((eb) => [eb.fn.max("id").as("hi"), eb.fn.min("id").as("lo")])
    .executeTakeFirst();
  if (!row || row.hi === null || row.lo === null) return 0;
  return Number(row.hi) - Number(row.lo) + 1;
}

export async function queueDepth(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom("queue")
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
  body: Buffer;
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
    body: Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body as unknown as Uint8Array),
    attempts: Number(r.attempts),
  };
}
