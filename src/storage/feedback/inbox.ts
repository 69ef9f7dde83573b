/**
 * The feedback inbox: user feedback of an organization's projects, newest first, with keyset
 * pagination and the issue of the event each report is about (when that event is stored).
 * Writes live in feedback.ts (ingest).
 */
import type { Db } from "../db";
import type { FeedbackSource } from "./feedback";

export interface InboxCursor {
  createdAt: number;
  id: number;
}

export interface InboxRow {
  id: number;
  projectId: number;
  eventId: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  source: FeedbackSource;
  createdAt: number;
  /** the issue of the reported event, when that event is stored */
  issue: { id: number; shortId: number; title: string; level: string } | null;
  /** the session replay the feedback widget named */
  replayId: string | null;
}

export async function listInbox(db: Db, q: { projectIds: number[]; cursor?: InboxCursor | null; limit: number }): Promise<InboxRow[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely
    .selectFrom("user_feedback as f")
    .leftJoin("events as e", (j) => j.onRef("e.project_id", "=", "f.project_id").onRef("e.event_id", "=", "f.event_id"))
    .leftJoin("issues as i", "i.id", "e.issue_id")
    .select([
      "f.id",
      "f.project_id",
      "f.event_id",
      "f.name",
      "f.email",
      "f.comments",
      "f.url",
      "f.source",
      "f.created_at",
      "f.replay_id",
      "i.id as issue_id",
      "i.short_id as issue_short_id",
      "i.title as issue_title",
      "i.level as issue_level",
    ])
    .where("f.project_id", "in", q.projectIds);
  const c = q.cursor;
  if (c)
    query = query.where((eb) =>
      eb.or([eb("f.created_at", "<", c.createdAt), eb.and([eb("f.created_at", "=", c.createdAt), eb("f.id", "<", c.id)])]),
    );
  const rows = await query.orderBy("f.created_at", "desc").orderBy("f.id", "desc").limit(q.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    projectId: Number(r.project_id),
    eventId: r.event_id,
    name: r.name,
    email: r.email,
    comments: r.comments,
    url: r.url,
    source: r.source as FeedbackSource,
    createdAt: Number(r.created_at),
    replayId: r.replay_id ?? null,
    issue:
      r.issue_id === null || r.issue_id === undefined
        ? null
        : { id: Number(r.issue_id), shortId: Number(r.issue_short_id), title: r.issue_title ?? "", level: r.issue_level ?? "error" },
  }));
}
