/**
 * Redirects from merged issues to the issue that absorbed them (0016). A merge into an issue that
 * was itself a redirect target re-points the older redirects too, so a lookup is one hop.
 */
import type { Db } from "../db";
import type { Tx } from "../dialect";

/** Records `fromIds` → `toId` (and moves redirects that pointed at any of `fromIds`). */
export async function addIssueRedirects(tx: Tx, projectId: number, fromIds: number[], toId: number, at: number): Promise<void> {
  if (fromIds.length === 0) return;
  await tx.updateTable("issue_redirects").set({ target_issue_id: toId }).where("target_issue_id", "in", fromIds).execute();
  await tx
    .deleteFrom("issue_redirects")
    .where("issue_id", "in", [...fromIds, toId])
    .execute();
  await tx
    .insertInto("issue_redirects")
    .values(fromIds.map((id) => ({ issue_id: id, project_id: projectId, target_issue_id: toId, created_at: at })))
    .execute();
}

/** Where a merged issue went, or undefined. */
export async function findIssueRedirect(db: Db, issueId: number): Promise<{ projectId: number; targetId: number } | undefined> {
  const r = await db.kysely
    .selectFrom("issue_redirects")
    .select(["project_id", "target_issue_id"])
    .where("issue_id", "=", issueId)
    .executeTakeFirst();
  return r ? { projectId: Number(r.project_id), targetId: Number(r.target_issue_id) } : undefined;
}

/** A deleted issue takes the redirects to it along (they would lead to a 404 anyway). */
export async function deleteIssueRedirectsTo(tx: Tx, issueId: number): Promise<void> {
  await tx.deleteFrom("issue_redirects").where("target_issue_id", "=", issueId).execute();
}
