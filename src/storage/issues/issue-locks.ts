/**
 * The one lock order between the digest and triage (ARCHITECTURE.md principle 13).
 *
 * Every transaction that changes an issue — the digest storing events, merge, unmerge, delete,
 * bulk status and assignment, re-symbolication — takes, in this order:
 *
 *   1. the issue rows it touches, by id ascending, before anything else of theirs
 *      (PostgreSQL: `SELECT … ORDER BY id FOR UPDATE`; SQLite: its write transaction is
 *      `BEGIN IMMEDIATE`, exclusive already, so the same call only reads);
 *   2. then what hangs off those issues: hashes, events, user sets, counters (issue_hourly,
 *      issue_daily, tag counts), activity — never touched without the issue's row lock;
 *   3. then project-wide rows (`projects.next_short_id`, releases, outcomes), each written in
 *      key order.
 *
 * No transaction waits for a lock of step 1 while holding one of a later step or a higher issue
 * id, so the wait-for graph has no cycle: deadlocks are designed out, not retried away. An
 * issue id that only turns up after higher ones are held (a merge redirected the hash to an
 * older issue meanwhile) is not locked out of order: the transaction starts again with it
 * (`IssueLockOrderError`), rare and bounded.
 *
 * The digest reads which issue owns an event's hashes, locks those issues, and reads the owners
 * again: what it read before the lock may have been merged away, deleted or unmerged meanwhile.
 * Under the locks the answer cannot change until the commit.
 */
import type { Db } from "../db";
import { chunks, isPostgres, isTransientTxError, type Tx, writeTx } from "../dialect";

/**
 * An issue id that must be locked after higher ones are already held: the transaction rolls back
 * and starts again with `ids` among the first locks taken.
 */
export class IssueLockOrderError extends Error {
  constructor(readonly ids: number[]) {
    super(`issue ${ids.join(", ")} must be locked before issues with higher ids; the transaction starts again`);
    this.name = "IssueLockOrderError";
  }
}

/**
 * Locks these issue rows in id order (no-op read on SQLite) and returns the ids that exist.
 * Call it first in a transaction, or with ids all above every issue id the transaction holds.
 */
export async function lockIssues(tx: Tx, ids: Iterable<number>): Promise<Set<number>> {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const found = new Set<number>();
  // Chunks in ascending order keep the global order across statements.
  for (const part of chunks(sorted, 500)) {
    let q = tx.selectFrom("issues").select("id").where("id", "in", part).orderBy("id");
    if (isPostgres(tx)) q = q.forUpdate();
    for (const r of await q.execute()) found.add(Number(r.id));
  }
  return found;
}

/** The issue locks one transaction holds, taken only upwards. */
export class IssueLocks {
  private readonly held = new Set<number>();
  private max = 0;
  /** set once a later step of the order (a project row) is locked: no issue lock may follow */
  private sealed = false;

  has(id: number): boolean {
    return this.held.has(id);
  }

  /**
   * Locks the ids not held yet and returns the ones that exist (held or newly locked). Ids below
   * the highest held one would break the order: IssueLockOrderError, before anything is locked.
   */
  async take(tx: Tx, ids: Iterable<number>): Promise<Set<number>> {
    const wanted = [...new Set(ids)];
    const fresh = wanted.filter((id) => !this.held.has(id));
    const early = this.sealed ? fresh : fresh.filter((id) => id < this.max);
    if (early.length > 0) throw new IssueLockOrderError(early);
    const found = await lockIssues(tx, fresh);
    for (const id of found) this.adopt(id);
    return new Set(wanted.filter((id) => this.held.has(id)));
  }

  /** A later step of the lock order was taken: from now on only held issues may be used. */
  seal(): void {
    this.sealed = true;
  }

  /** An issue this transaction created: nobody else can see it, so it is held by construction. */
  adopt(id: number): void {
    this.held.add(id);
    this.max = Math.max(this.max, id);
  }

  /** An issue this transaction deleted again (dropUnusedIssues). */
  release(id: number): void {
    this.held.delete(id);
  }
}

/** Owner of each given hash in a project (hash → issue id); hashes without one are absent. */
export async function readHashOwners(c: Db | Tx, projectId: number, hashes: string[]): Promise<Map<string, number>> {
  const k = "kysely" in c ? c.kysely : c;
  const out = new Map<string, number>();
  for (const part of chunks([...new Set(hashes)], 500)) {
    const rows = await k
      .selectFrom("issue_hashes")
      .select(["hash", "issue_id"])
      .where("project_id", "=", projectId)
      .where("hash", "in", part)
      .execute();
    for (const r of rows) out.set(r.hash, Number(r.issue_id));
  }
  return out;
}

/**
 * Hash rows of issues that no longer exist (seen missing by lockIssues; ids are never reused, so
 * missing stays missing): nothing can use them, and an event of such a hash starts a new issue,
 * as after a delete.
 */
export async function dropDanglingHashes(tx: Tx, projectId: number, missingIssueIds: number[]): Promise<void> {
  if (missingIssueIds.length === 0) return;
  await tx.deleteFrom("issue_hashes").where("project_id", "=", projectId).where("issue_id", "in", missingIssueIds).execute();
}

/**
 * The issue an event of `projectId` is stored under now, locked (re-symbolication rewrites it
 * under the lock); undefined when the event is gone. Follows the event if a merge or unmerge moves
 * it between the read and the lock.
 */
export async function lockEventIssue(tx: Tx, projectId: number, eventId: string): Promise<number | undefined> {
  for (let i = 0; i < 10; i += 1) {
    const row = await tx
      .selectFrom("events")
      .select("issue_id")
      .where("project_id", "=", projectId)
      .where("event_id", "=", eventId)
      .executeTakeFirst();
    if (!row) return undefined;
    const issueId = Number(row.issue_id);
    if (!(await lockIssues(tx, [issueId])).has(issueId)) continue;
    const again = await tx
      .selectFrom("events")
      .select("issue_id")
      .where("project_id", "=", projectId)
      .where("event_id", "=", eventId)
      .executeTakeFirst();
    if (again && Number(again.issue_id) === issueId) return issueId;
    // Moved meanwhile: the lock held is on an issue we do not need; one issue lock per transaction
    // keeps the order trivially, so start over with a fresh transaction.
    throw new IssueLockOrderError([issueId]);
  }
  throw new IssueLockOrderError([]);
}

/**
 * Step 3 of the order: a project's row, before registering hashes in it (and creating an issue,
 * whose short id the row counts). Serialises hash registration within a project, so owners read
 * after it are final. SQLite: nothing to do (one writer).
 */
export async function lockProjectRow(tx: Tx, projectId: number): Promise<void> {
  if (!isPostgres(tx)) return;
  await tx.selectFrom("projects").select("id").where("id", "=", projectId).forUpdate().execute();
}

/** Times a triage transaction starts again (lock order, a deadlock the database broke) before failing. */
const MAX_ATTEMPTS = 6;

/**
 * A write transaction that changes issues, run again — invisibly to the caller — when it had to
 * stop for the lock order or PostgreSQL aborted it (a deadlock, which the order rules out between
 * Errata's own transactions, or a serialization conflict). `onRetry` hears of each retry (the
 * services log it as a warning).
 */
export async function writeIssueTx<T>(db: Db, fn: (tx: Tx) => Promise<T>, onRetry?: (err: unknown, attempt: number) => void): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await writeTx(db, fn);
    } catch (err) {
      if (attempt >= MAX_ATTEMPTS || !(err instanceof IssueLockOrderError || isTransientTxError(err))) throw err;
      onRetry?.(err, attempt);
    }
  }
}
