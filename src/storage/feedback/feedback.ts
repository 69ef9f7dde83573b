/**
 * User feedback (SPEC §3 UserFeedback): legacy `user_report` items, new `feedback` items and the
 * crash-report dialog. One row per (project, feedback id); a report re-sent for the same event
 * replaces the earlier one (Sentry keeps the latest), and re-delivery stores nothing twice.
 */
import type { Db } from "../db";
import type { Tx } from "../dialect";

export type FeedbackSource = "user_report" | "feedback" | "crash_report_dialog";

export interface NewFeedback {
  projectId: number;
  feedbackId: string;
  eventId: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  source: FeedbackSource;
  createdAt: number;
  /** the session replay a feedback widget report names */
  replayId?: string | null;
}

export interface FeedbackRow extends NewFeedback {
  id: number;
}

export async function upsertFeedback(tx: Tx, f: NewFeedback): Promise<void> {
  await tx
    .insertInto("user_feedback")
    .values({
      project_id: f.projectId,
      feedback_id: f.feedbackId,
      event_id: f.eventId,
      name: f.name,
      email: f.email,
      comments: f.comments,
      url: f.url,
      source: f.source,
      created_at: f.createdAt,
      replay_id: f.replayId ?? null,
    })
    .onConflict((oc) =>
      oc.columns(["project_id", "feedback_id"]).doUpdateSet((eb) => ({
        name: eb.ref("excluded.name"),
        email: eb.ref("excluded.email"),
        comments: eb.ref("excluded.comments"),
        url: eb.ref("excluded.url"),
        replay_id: eb.ref("excluded.replay_id"),
      })),
    )
    .execute();
}

/** Feedback of these projects, newest first; optionally only what names one event. */
export async function listFeedback(
  db: Db,
  q: { projectIds: number[]; eventId?: string; limit?: number; range?: { start: number; end: number } },
): Promise<FeedbackRow[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("user_feedback")
    .select(["id", "project_id", "feedback_id", "event_id", "name", "email", "comments", "url", "source", "created_at", "replay_id"])
    .where("project_id", "in", q.projectIds);
  if (q.eventId !== undefined) query = query.where("event_id", "=", q.eventId);
  if (q.range) query = query.where("created_at", ">=", q.range.start).where("created_at", "<=", q.range.end);
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(Math.max(1, Math.min(q.limit ?? 100, 1000)))
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    projectId: Number(r.project_id),
    feedbackId: r.feedback_id,
    eventId: r.event_id,
    name: r.name,
    email: r.email,
    comments: r.comments,
    url: r.url,
    source: r.source as FeedbackSource,
    createdAt: Number(r.created_at),
    replayId: r.replay_id,
  }));
}
