/** The existing tracker issue linked to an issue (0039-owner-routing): one URL per issue. */
import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface IssueLink {
  issueId: number;
  url: string;
  userId: string | null;
  createdAt: number;
}

export async function setIssueLink(tx: Tx, link: IssueLink): Promise<void> {
  const values = { url: link.url, user_id: link.userId, created_at: link.createdAt };
  await tx
    .insertInto("issue_links")
    .values({ issue_id: link.issueId, ...values })
    .onConflict((oc) => oc.column("issue_id").doUpdateSet(values))
    .execute();
}

export async function deleteIssueLink(tx: Tx, issueId: number): Promise<boolean> {
  const r = await tx.deleteFrom("issue_links").where("issue_id", "=", issueId).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** The links of these issues (a stream page), by issue id. */
export async function issueLinks(db: Db | Tx, issueIds: number[]): Promise<Map<number, IssueLink>> {
  const out = new Map<number, IssueLink>();
  const k = "kysely" in db ? db.kysely : db;
  for (let i = 0; i < issueIds.length; i += 500) {
    const rows = await k
      .selectFrom("issue_links")
      .selectAll()
      .where("issue_id", "in", issueIds.slice(i, i + 500))
      .execute();
    for (const r of rows)
      out.set(Number(r.issue_id), { issueId: Number(r.issue_id), url: r.url, userId: r.user_id, createdAt: Number(r.created_at) });
  }
  return out;
}
