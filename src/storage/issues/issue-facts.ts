/**
 * What Sentry's issue serializer says about a page of issues beyond the issue row: whether any of
 * its events was unhandled, whether its latest event has attachments, how many user reports name
 * its events, how many comments it has. One query per page (by issue id, on indexes), never one
 * per issue.
 */
import type { Db } from "../db";

/** The issues with an unhandled event: the `handled:no` tag value (core/search/event-tags.ts), on the primary key. */
export async function unhandledIssueIds(db: Db, issueIds: number[]): Promise<Set<number>> {
  if (issueIds.length === 0) return new Set();
  const rows = await db.kysely
    .selectFrom("issue_tag_values")
    .select("issue_id")
    .where("issue_id", "in", issueIds)
    .where("key", "=", "handled")
    .where("value", "=", "no")
    .execute();
  return new Set(rows.map((r) => Number(r.issue_id)));
}

/** Of these events, those with an attachment (`project:event` keys), on attachments_dedupe's prefix. */
export async function eventsWithAttachments(db: Db, events: Array<{ projectId: number; eventId: string }>): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const rows = await db.kysely
    .selectFrom("attachments")
    .select(["project_id", "event_id"])
    .where("project_id", "in", [...new Set(events.map((e) => e.projectId))])
    .where("event_id", "in", [...new Set(events.map((e) => e.eventId))])
    .groupBy(["project_id", "event_id"])
    .execute();
  return new Set(rows.map((r) => `${Number(r.project_id)}:${r.event_id}`));
}

/** User reports (feedback naming an event) on any event of this issue: Sentry's `userReportCount`. */
export async function countIssueFeedback(db: Db, issue: { id: number; projectId: number }): Promise<number> {
  const row = await db.kysely
    .selectFrom("user_feedback as f")
    .innerJoin("events as e", (j) => j.onRef("e.project_id", "=", "f.project_id").onRef("e.event_id", "=", "f.event_id"))
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("f.project_id", "=", issue.projectId)
    .where("e.issue_id", "=", issue.id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Comments per issue (Sentry's `numComments`), on activity_issue's prefix. */
export async function commentCounts(db: Db, issueIds: number[]): Promise<Map<number, number>> {
  if (issueIds.length === 0) return new Map();
  const rows = await db.kysely
    .selectFrom("activity")
    .select((eb) => ["issue_id", eb.fn.countAll<number>().as("n")])
    .where("issue_id", "in", issueIds)
    .where("kind", "=", "comment")
    .groupBy("issue_id")
    .execute();
  return new Map(rows.map((r) => [Number(r.issue_id), Number(r.n)]));
}
