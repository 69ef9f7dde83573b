/**
 * Triage operations that span several transactions — merge and delete move or remove a big
 * issue's events in chunks — and every other triage write on the same issues.
 *
 * A merge or delete first claims all its issues (src/storage/issues/claims.ts) in one transaction
 * under their locks; every chunk checks, under the locks again, that it still owns them and
 * pushes the claim's expiry forward; the last transaction drops the claims with the work done.
 * Meanwhile another triage operation on a claimed issue is refused with `conflict` (409) naming
 * what is in progress, rather than waiting: a merge or delete of a big issue takes longer than a
 * request should hang, and once it is over the issue the user acted on may be gone or merged —
 * applying their change then would act on something they did not see. Changing the status,
 * assignee or comments of the issue a merge keeps cannot interfere and is let through. The digest
 * does not look at claims: events keep being stored, and the last transaction takes them along.
 *
 * A run whose process died stops renewing its claims. Once they expire, the next triage operation
 * that needs those issues takes the claims over and finishes the interrupted work first (a merge
 * half-way has moved events whose counts are still on the issue they came from), then goes on;
 * the worker's maintenance loop finishes the ones nobody touches (`finishAllStalled`), so a
 * half-moved merge is never left for good.
 *
 * It lives in storage, not with the services: it authorizes nothing (the services did, before
 * claiming), and the worker's maintenance loop, which may not import services, runs it too.
 */
import { randomUUID } from "node:crypto";
import { AppError } from "../../core/errors";
import type { Logger } from "../../log";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import { insertActivities, moveActivity } from "./activity";
import {
  type ClaimOperation,
  dropIssueClaims,
  expireIssueClaims,
  type IssueClaim,
  insertIssueClaims,
  readClaimsOf,
  readExpiredClaimOwners,
  readIssueClaims,
  releaseIssueClaims,
  renewIssueClaims,
  takeOverIssueClaims,
} from "./claims";
import { lockIssues, writeIssueTx } from "./issue-locks";
import { deleteIssueCompletely, deleteIssueEventsChunk, mergedIssueLabels, mergeIssueRows, moveEventsChunk } from "./lifecycle";
import { addIssueRedirects, deleteIssueRedirectsTo } from "./redirects";

/** Test seam of the multi-transaction operations: interleaving tests pause them between chunks. */
export interface TriageHooks {
  /** rows per chunk transaction (default 500) */
  chunkSize?: number;
  /** awaited after each committed chunk, before the next transaction */
  betweenChunks?(step: { operation: ClaimOperation; issueIds: number[] }): Promise<void>;
}

export interface TriageClaimsDeps {
  db: Db;
  now: () => number;
  log?: Logger;
  hooks?: TriageHooks;
}

/**
 * What another operation wants to do with claimed issues: `change` their state, assignee or
 * comments (fine on the issue a merge keeps), or `restructure` them (merge, unmerge, delete).
 */
export type ClaimIntent = "change" | "restructure";

export interface MergeRun {
  owner: string;
  projectId: number;
  primaryId: number;
  otherIds: number[];
  actorUserId: string | null;
}

/** Rows per chunk transaction: short enough not to hold the issues' locks for long. */
const DEFAULT_CHUNK = 500;
/**
 * How long a claim lasts without its run renewing it. Every chunk renews it, and a chunk takes
 * milliseconds to seconds; two minutes of silence means the process is gone.
 */
const LEASE_MS = 120_000;

export function createTriageClaims(deps: TriageClaimsDeps) {
  const { db, now } = deps;
  const chunkSize = deps.hooks?.chunkSize ?? DEFAULT_CHUNK;
  const betweenChunks = deps.hooks?.betweenChunks ?? (async () => {});

  const issueTx = <T>(fn: (tx: Tx) => Promise<T>) =>
    writeIssueTx(db, fn, (err, attempt) =>
      deps.log?.warn(
        { attempt, err: { name: (err as Error)?.name, code: (err as { code?: string })?.code } },
        "issue triage transaction retried",
      ),
    );

  /** Locks the issues (id order); not_found when one is gone. */
  async function lockAll(tx: Tx, ids: number[]): Promise<void> {
    requireAll(await lockIssues(tx, ids), ids);
  }

  function requireAll(held: Set<number>, ids: number[]): void {
    const gone = ids.find((id) => !held.has(id));
    if (gone !== undefined) throw new AppError("not_found", `Issue ${gone} not found.`);
  }

  function conflict(c: IssueClaim, at: number): AppError {
    const seconds = Math.round((at - c.claimedAt) / 1000);
    const since = seconds < 1 ? "just now" : `${seconds} s ago`;
    if (c.expiresAt <= at)
      return new AppError("conflict", `Issue ${c.issueId} has an interrupted ${c.operation} being finished; try again in a moment.`);
    if (c.operation === "delete")
      return new AppError("conflict", `Issue ${c.issueId} is being deleted (started ${since}); reload when it has finished.`);
    if (c.targetIssueId === c.issueId)
      return new AppError(
        "conflict",
        `Other issues are being merged into issue ${c.issueId} (started ${since}); try again when the merge has finished.`,
      );
    return new AppError(
      "conflict",
      `Issue ${c.issueId} is being merged into issue ${c.targetIssueId} (started ${since}); try again when the merge has finished.`,
    );
  }

  /** A claim of another run that stands in the way of `intent`. */
  function blocking(claims: IssueClaim[], intent: ClaimIntent, owner?: string): IssueClaim | undefined {
    const keeps = (c: IssueClaim) => c.operation === "merge" && c.targetIssueId === c.issueId;
    return claims.find((c) => c.owner !== owner && !(intent === "change" && keeps(c)));
  }

  /**
   * In a triage transaction, after its issues are locked: `conflict` when another run's merge or
   * delete holds one of them.
   */
  async function assertUnclaimed(tx: Tx, ids: number[], intent: ClaimIntent): Promise<void> {
    const c = blocking(await readIssueClaims(tx, ids), intent);
    if (c) throw conflict(c, now());
  }

  /** A chunk's first step: locks `ids`, which the run must still own (claims renewed), all present. */
  async function lockClaimed(tx: Tx, owner: string, ids: number[]): Promise<void> {
    const held = await lockIssues(tx, ids);
    await keep(tx, owner, ids);
    requireAll(held, ids);
  }

  /** Under a chunk's locks: the run still owns its claims on `ids` (renewed), or `conflict`. */
  async function keep(tx: Tx, owner: string, ids: number[]): Promise<void> {
    if ((await renewIssueClaims(tx, owner, ids, now() + LEASE_MS)) === ids.length) return;
    throw new AppError(
      "conflict",
      "This operation no longer holds its issues: it stalled past its lease and another request finished it, or the issues were deleted. Reload to see the result.",
    );
  }

  /** A run that failed: untouched issues are let go, a half-done one is left to be finished. */
  async function giveUp(owner: string, opts: { halfDone: boolean; release?: number[] }): Promise<void> {
    try {
      if (opts.release) await releaseIssueClaims(db, owner, opts.release);
      if (opts.halfDone) await expireIssueClaims(db, owner, now());
      else await releaseIssueClaims(db, owner);
    } catch (err) {
      // The claims expire by themselves; the operation's own error is the one to report.
      deps.log?.warn({ err: { name: (err as Error)?.name } }, "could not release triage claims; they expire");
    }
  }

  /** Claims `ids` for a new run of `operation`; `conflict` when another run holds one of them. */
  async function claim(
    operation: ClaimOperation,
    c: { issues: Array<{ id: number; projectId: number }>; targetIssueId?: number; actorUserId: string | null },
  ): Promise<string> {
    const ids = c.issues.map((i) => i.id);
    await finishStalled(ids);
    const owner = randomUUID();
    await issueTx(async (tx) => {
      await lockAll(tx, ids);
      await assertUnclaimed(tx, ids, "restructure");
      const at = now();
      await insertIssueClaims(
        tx,
        c.issues.map((i) => ({
          issueId: i.id,
          projectId: i.projectId,
          operation,
          targetIssueId: c.targetIssueId ?? null,
          owner,
          actorUserId: c.actorUserId,
          claimedAt: at,
          expiresAt: at + LEASE_MS,
        })),
      );
    });
    return owner;
  }

  /**
   * Moves the merged issues' events to the survivor in chunks, then — in one transaction — their
   * counters, statistics, users, hashes and activity, and removes them. The run owns the claims.
   */
  async function runMerge(m: MergeRun): Promise<void> {
    const all = [m.primaryId, ...m.otherIds];
    let moved = 0;
    try {
      for (;;) {
        const n = await issueTx(async (tx) => {
          await lockClaimed(tx, m.owner, all);
          return moveEventsChunk(tx, m.otherIds, m.primaryId, chunkSize);
        });
        moved += n;
        if (n < chunkSize) break;
        await betweenChunks({ operation: "merge", issueIds: all });
      }
      const at = now();
      await issueTx(async (tx) => {
        await lockClaimed(tx, m.owner, all);
        // In the order the merge named them (oldest first), as the activity entry lists them.
        const labels = await mergedIssueLabels(tx, m.otherIds);
        const merged = m.otherIds.flatMap((id) => labels.filter((l) => l.id === id));
        await mergeIssueRows(tx, m.primaryId, m.otherIds);
        await moveActivity(tx, m.otherIds, m.primaryId);
        await addIssueRedirects(tx, m.projectId, m.otherIds, m.primaryId, at);
        await insertActivities(tx, m.primaryId, m.projectId, [{ kind: "merge", actorUserId: m.actorUserId, data: { merged } }], at);
        await releaseIssueClaims(tx, m.owner, all);
      });
    } catch (err) {
      await giveUp(m.owner, { halfDone: moved > 0 });
      throw err;
    }
  }

  /**
   * Deletes the issues one by one: their events in chunks, then what is left with the row. An
   * issue gone meanwhile (its project deleted) is skipped.
   */
  async function runDelete(owner: string, ids: number[]): Promise<void> {
    const sorted = [...ids].sort((a, b) => a - b);
    for (const [i, id] of sorted.entries()) {
      let removed = 0;
      try {
        for (;;) {
          const n = await issueTx(async (tx) => {
            if (!(await lockIssues(tx, [id])).has(id)) return 0;
            await keep(tx, owner, [id]);
            return deleteIssueEventsChunk(tx, id, chunkSize);
          });
          removed += n;
          if (n < chunkSize) break;
          await betweenChunks({ operation: "delete", issueIds: sorted });
        }
        await issueTx(async (tx) => {
          if (!(await lockIssues(tx, [id])).has(id)) return releaseIssueClaims(tx, owner, [id]);
          await keep(tx, owner, [id]);
          await deleteIssueRedirectsTo(tx, id);
          await deleteIssueCompletely(tx, id);
          await releaseIssueClaims(tx, owner, [id]);
        });
      } catch (err) {
        await giveUp(owner, { halfDone: removed > 0, release: sorted.slice(i + 1) });
        throw err;
      }
    }
  }

  /** Takes over the expired claims of run `stalled` and finishes its work. */
  async function resume(stalled: string): Promise<void> {
    const owner = randomUUID();
    const taken = await issueTx(async (tx) => {
      const claims = await readClaimsOf(tx, stalled);
      const ids = claims.map((c) => c.issueId);
      const held = await lockIssues(tx, ids);
      await dropIssueClaims(
        tx,
        ids.filter((id) => !held.has(id)),
      );
      const t = now();
      return takeOverIssueClaims(tx, stalled, { owner, now: t, expiresAt: t + LEASE_MS });
    });
    const first = taken[0];
    if (!first) return;
    deps.log?.warn({ operation: first.operation, issueIds: taken.map((c) => c.issueId) }, "finishing an interrupted triage operation");
    if (first.operation === "delete")
      return runDelete(
        owner,
        taken.map((c) => c.issueId),
      );
    const target = first.targetIssueId;
    const others = taken.filter((c) => c.issueId !== target).map((c) => c.issueId);
    // The survivor went with its project: nothing to finish.
    if (target === null || !taken.some((c) => c.issueId === target)) return releaseIssueClaims(db, owner);
    return runMerge({ owner, projectId: first.projectId, primaryId: target, otherIds: others, actorUserId: first.actorUserId });
  }

  /** Before a triage operation on `ids`: finishes the work of runs that stopped (claims expired). */
  async function finishStalled(ids: number[]): Promise<void> {
    const at = now();
    const stalled = new Set((await readIssueClaims(db, ids)).filter((c) => c.expiresAt <= at).map((c) => c.owner));
    for (const owner of stalled) await resume(owner);
  }

  /** Finishes every run whose claims expired (the maintenance loop); returns how many it resumed. */
  async function finishAllStalled(): Promise<number> {
    const owners = await readExpiredClaimOwners(db, now());
    for (const owner of owners) await resume(owner);
    return owners.length;
  }

  return { claim, runMerge, runDelete, assertUnclaimed, finishStalled, finishAllStalled };
}

export type TriageClaims = ReturnType<typeof createTriageClaims>;
