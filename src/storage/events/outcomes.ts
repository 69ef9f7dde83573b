/**
 * Outcome counters (SPEC §3): one row per project, key, hour, category, outcome and reason,
 * incremented by upserts. Writers batch their counts (see `OutcomeTally`): ingest inside its group
 * commit, the digest worker inside its batch transaction.
 */
import { sql } from "kysely";
import type { OutcomeCount, OutcomeName } from "../../core/outcomes";
import type { Db } from "../db";
import type { Tx } from "../dialect";

type SqliteHandle = NonNullable<Db["sqlite"]>;

/** The counter upsert, also run by the queue writer thread (queue-writer.ts). */
export const OUTCOME_UPSERT_SQL =
  "INSERT INTO outcomes (project_id, key_id, hour, category, outcome, reason, quantity) VALUES (?, ?, ?, ?, ?, ?, ?) " +
  "ON CONFLICT (project_id, key_id, hour, category, outcome, reason) DO UPDATE SET quantity = outcomes.quantity + excluded.quantity";

/** Rows per statement on the Kysely path (7 parameters each; far below both dialects' limits). */
const CHUNK = 200;

/** Adds counts inside a Kysely transaction (both dialects). */
export async function addOutcomes(tx: Tx, counts: readonly OutcomeCount[]): Promise<void> {
  const rows = mergeCounts(counts);
  for (let i = 0; i < rows.length; i += CHUNK) {
    await tx
      .insertInto("outcomes")
      .values(
        rows.slice(i, i + CHUNK).map((c) => ({
          project_id: c.projectId,
          key_id: c.keyId,
          hour: c.hour,
          category: c.category,
          outcome: c.outcome,
          reason: c.reason,
          quantity: c.quantity,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["project_id", "key_id", "hour", "category", "outcome", "reason"]).doUpdateSet({
          quantity: sql<number>`outcomes.quantity + excluded.quantity`,
        }),
      )
      .execute();
  }
}

const prepared = new WeakMap<object, { run: (...args: unknown[]) => unknown }>();

/**
 * Adds counts with a prepared statement on the raw better-sqlite3 handle; call it inside the
 * caller's better-sqlite3 transaction (ingest's queue write).
 */
export function addOutcomesSqlite(handle: SqliteHandle, counts: readonly OutcomeCount[]): void {
  let stmt = prepared.get(handle);
  if (!stmt) {
    stmt = handle.prepare<unknown[]>(OUTCOME_UPSERT_SQL);
    prepared.set(handle, stmt);
  }
  for (const c of mergeCounts(counts)) stmt.run(c.projectId, c.keyId, c.hour, c.category, c.outcome, c.reason, c.quantity);
}

/** Adds counts in a transaction of their own (outcomes with no queue write to ride along). */
export async function addOutcomesNow(db: Db, counts: readonly OutcomeCount[]): Promise<void> {
  if (counts.length === 0) return;
  if (db.sqlite) {
    const handle = db.sqlite;
    handle.transaction(() => addOutcomesSqlite(handle, counts)).immediate();
    return;
  }
  await db.kysely.transaction().execute((tx) => addOutcomes(tx, counts));
}

export interface OutcomeRow {
  projectId: number;
  keyId: number;
  hour: number;
  category: string;
  outcome: OutcomeName;
  reason: string;
  quantity: number;
}

/** Counters of these projects with `from <= hour < to`, oldest first. */
export async function listOutcomes(db: Db, q: { projectIds: number[]; from: number; to: number }): Promise<OutcomeRow[]> {
  if (q.projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom("outcomes")
    .select(["project_id", "key_id", "hour", "category", "outcome", "reason", "quantity"])
    .where("project_id", "in", q.projectIds)
    .where("hour", ">=", q.from)
    .where("hour", "<", q.to)
    .orderBy("hour")
    .orderBy("project_id")
    .orderBy("category")
    .orderBy("outcome")
    .orderBy("reason")
    .orderBy("key_id")
    .execute();
  return rows.map((r) => ({
    projectId: Number(r.project_id),
    keyId: Number(r.key_id),
    hour: Number(r.hour),
    category: r.category,
    outcome: r.outcome as OutcomeName,
    reason: r.reason,
    quantity: Number(r.quantity),
  }));
}

/** One row per key: PostgreSQL refuses an upsert that touches the same row twice. */
function mergeCounts(counts: readonly OutcomeCount[]): OutcomeCount[] {
  const byKey = new Map<string, OutcomeCount>();
  for (const c of counts) {
    if (!(c.quantity > 0)) continue;
    const k = `${c.projectId}|${c.keyId}|${c.hour}|${c.category}|${c.outcome}|${c.reason}`;
    const prev = byKey.get(k);
    if (prev) prev.quantity += c.quantity;
    else byKey.set(k, { ...c });
  }
  // In key order: concurrent writers lock the rows they add to in one order (no deadlock).
  return [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}
