/**
 * Claims of the multi-transaction triage operations (0045-issue-claims). A merge or a delete moves
 * or removes a big issue's events in chunks, one short transaction each; between two chunks the
 * issues are half-way (a merge's moved events are still counted by the issue they came from). A
 * claim keeps every other triage operation off those issues until the last chunk: it is taken,
 * checked and renewed only under the issues' row locks, as step 2 of the lock order
 * (src/storage/issues/issue-locks.ts), so it adds no new way to deadlock. The digest never reads
 * claims: events keep being stored for claimed issues, and the operation's last transaction
 * takes them along.
 *
 * A claim has an owner (the operation's run) and an expiry that every chunk pushes forward: a run
 * whose process died stops renewing, and after the expiry another run takes the claim over and
 * finishes the work (src/storage/issues/triage-runs.ts).
 */
import type { Db } from "../db";
import type { Tx } from "../dialect";

export type ClaimOperation = "merge" | "delete";

export interface IssueClaim {
  issueId: number;
  projectId: number;
  operation: ClaimOperation;
  /** merge: the surviving issue (the survivor's own claim names itself) */
  targetIssueId: number | null;
  owner: string;
  actorUserId: string | null;
  claimedAt: number;
  expiresAt: number;
}

const columns = ["issue_id", "project_id", "operation", "target_issue_id", "owner", "actor_user_id", "claimed_at", "expires_at"] as const;

type ClaimRow = {
  issue_id: number;
  project_id: number;
  operation: string;
  target_issue_id: number | null;
  owner: string;
  actor_user_id: string | null;
  claimed_at: number;
  expires_at: number;
};

function toClaim(r: ClaimRow): IssueClaim {
  return {
    issueId: Number(r.issue_id),
    projectId: Number(r.project_id),
    operation: r.operation === "delete" ? "delete" : "merge",
    targetIssueId: r.target_issue_id === null ? null : Number(r.target_issue_id),
    owner: r.owner,
    actorUserId: r.actor_user_id,
    claimedAt: Number(r.claimed_at),
    expiresAt: Number(r.expires_at),
  };
}

/** The claims on these issues (read under their locks to act on them). */
export async function readIssueClaims(c: Db | Tx, issueIds: number[]): Promise<IssueClaim[]> {
  if (issueIds.length === 0) return [];
  const k = "kysely" in c ? c.kysely : c;
  const rows = await k.selectFrom("issue_claims").select(columns).where("issue_id", "in", issueIds).orderBy("issue_id").execute();
  return rows.map(toClaim);
}

/** Every claim of one run (an owner's whole operation: the survivor and what merges into it). */
export async function readClaimsOf(c: Db | Tx, owner: string): Promise<IssueClaim[]> {
  const k = "kysely" in c ? c.kysely : c;
  const rows = await k.selectFrom("issue_claims").select(columns).where("owner", "=", owner).orderBy("issue_id").execute();
  return rows.map(toClaim);
}

/** Runs whose claims have expired (their process stopped renewing them), oldest claim first. */
export async function readExpiredClaimOwners(db: Db, now: number): Promise<string[]> {
  const rows = await db.kysely
    .selectFrom("issue_claims")
    .select("owner")
    .where("expires_at", "<=", now)
    .groupBy("owner")
    .orderBy((eb) => eb.fn.min("claimed_at"))
    .execute();
  return rows.map((r) => r.owner);
}

/** Claims these (locked, unclaimed) issues. */
export async function insertIssueClaims(tx: Tx, claims: IssueClaim[]): Promise<void> {
  if (claims.length === 0) return;
  await tx
    .insertInto("issue_claims")
    .values(
      claims.map((c) => ({
        issue_id: c.issueId,
        project_id: c.projectId,
        operation: c.operation,
        target_issue_id: c.targetIssueId,
        owner: c.owner,
        actor_user_id: c.actorUserId,
        claimed_at: c.claimedAt,
        expires_at: c.expiresAt,
      })),
    )
    .execute();
}

/** Pushes the expiry of the run's claims on these issues forward; returns how many it still owns. */
export async function renewIssueClaims(tx: Tx, owner: string, issueIds: number[], expiresAt: number): Promise<number> {
  if (issueIds.length === 0) return 0;
  const r = await tx
    .updateTable("issue_claims")
    .set({ expires_at: expiresAt })
    .where("owner", "=", owner)
    .where("issue_id", "in", issueIds)
    .executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}

/**
 * Hands an expired run's claims to a new owner (with a new expiry): returns the claims taken, none
 * when another run took them first or the old owner renewed them meanwhile.
 */
export async function takeOverIssueClaims(
  tx: Tx,
  from: string,
  to: { owner: string; now: number; expiresAt: number },
): Promise<IssueClaim[]> {
  await tx
    .updateTable("issue_claims")
    .set({ owner: to.owner, expires_at: to.expiresAt })
    .where("owner", "=", from)
    .where("expires_at", "<=", to.now)
    .execute();
  return readClaimsOf(tx, to.owner);
}

/** Ends the run's claims on these issues (its work on them is done, or was never started). */
export async function releaseIssueClaims(c: Db | Tx, owner: string, issueIds?: number[]): Promise<void> {
  const k = "kysely" in c ? c.kysely : c;
  let q = k.deleteFrom("issue_claims").where("owner", "=", owner);
  if (issueIds) {
    if (issueIds.length === 0) return;
    q = q.where("issue_id", "in", issueIds);
  }
  await q.execute();
}

/**
 * A run that failed half-way: its claims expire now, so the next triage operation on those issues
 * takes them over and finishes the work rather than leaving the issues half-way.
 */
export async function expireIssueClaims(db: Db, owner: string, now: number): Promise<void> {
  await db.kysely.updateTable("issue_claims").set({ expires_at: now }).where("owner", "=", owner).execute();
}

/** Claims of issues that no longer exist (their project was deleted mid-operation): nothing to finish. */
export async function dropIssueClaims(tx: Tx, issueIds: number[]): Promise<void> {
  if (issueIds.length === 0) return;
  await tx.deleteFrom("issue_claims").where("issue_id", "in", issueIds).execute();
}
