/**
 * Reads the triage screens need beyond issues and stats: an issue's events (filtered, paged,
 * first/latest/older/newer), which issue a pasted event id belongs to, the organization's members
 * (assignment menus) and the user feedback about an issue's events.
 */
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from "kysely";
import type { Db } from "../db";
import { type EventRow, rowColumns, toRow } from "../events/events";
import type { Database } from "../schema";

/** Filters the events list understands (a subset of the search language, on event columns). */
export type EventFilter =
  | { kind: "level"; values: string[]; negated: boolean }
  | { kind: "column"; column: "environment" | "release" | "user_key" | "digest"; values: string[]; negated: boolean }
  | { kind: "has_user"; negated: boolean }
  | { kind: "text"; value: string }
  | { kind: "received"; op: "gte" | "lte"; at: number };

type EEB = ExpressionBuilder<Database, "events">;

function filterExpr(eb: EEB, f: EventFilter): Expression<SqlBool> {
  const not = (e: Expression<SqlBool>) => ("negated" in f && f.negated ? eb.not(e) : e);
  switch (f.kind) {
    case "level":
      return not(eb("level", "in", f.values));
    case "column":
      // coalesce: a negated filter keeps events without the field.
      return not(eb(eb.fn.coalesce(f.column, sql.lit("")), "in", f.values));
    case "has_user":
      return f.negated ? eb("user_key", "is", null) : eb("user_key", "is not", null);
    case "text": {
      const pattern = `%${f.value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return eb(sql`lower(title)`, "like", sql`${pattern} escape '\\'`);
    }
    case "received":
      return eb("received_at", f.op === "gte" ? ">=" : "<=", f.at);
  }
}

/** An issue's events, newest first, filtered (keyset pagination on received_at, id). */
export async function searchIssueEvents(
  db: Db,
  q: { issueId: number; filters: EventFilter[]; limit: number; cursor?: { receivedAt: number; id: number } | null },
): Promise<{ items: EventRow[]; nextCursor: { receivedAt: number; id: number } | null }> {
  const limit = Math.max(1, Math.min(q.limit, 200));
  let query = db.kysely.selectFrom("events").select(rowColumns).where("issue_id", "=", q.issueId);
  for (const f of q.filters) query = query.where((eb) => filterExpr(eb, f));
  const c = q.cursor;
  if (c) query = query.where(sql<SqlBool>`(received_at, id) < (${c.receivedAt}, ${c.id})`);
  const rows = await query
    .orderBy("received_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const items = rows.slice(0, limit).map(toRow);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? { receivedAt: last.receivedAt, id: last.id } : null };
}

export interface EventNavigation {
  first: string | null;
  older: string | null;
  newer: string | null;
  latest: string | null;
}

/** Oldest, older, newer and latest event ids around an event of an issue (four indexed lookups, run together). */
export async function eventNavigation(db: Db, e: { issueId: number; receivedAt: number; id: number }): Promise<EventNavigation> {
  const base = () => db.kysely.selectFrom("events").select("event_id").where("issue_id", "=", e.issueId);
  const [first, older, newer, latest] = await Promise.all([
    base().orderBy("received_at", "asc").orderBy("id", "asc").limit(1).executeTakeFirst(),
    // Row-value comparisons: both databases seek the (issue_id, received_at) index from them.
    base()
      .where(sql<SqlBool>`(received_at, id) < (${e.receivedAt}, ${e.id})`)
      .orderBy("received_at", "desc")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst(),
    base()
      .where(sql<SqlBool>`(received_at, id) > (${e.receivedAt}, ${e.id})`)
      .orderBy("received_at", "asc")
      .orderBy("id", "asc")
      .limit(1)
      .executeTakeFirst(),
    base().orderBy("received_at", "desc").orderBy("id", "desc").limit(1).executeTakeFirst(),
  ]);
  return {
    first: first?.event_id ?? null,
    older: older?.event_id ?? null,
    newer: newer?.event_id ?? null,
    latest: latest?.event_id ?? null,
  };
}

/** The first event an issue still has. */
export async function oldestEventId(db: Db, issueId: number): Promise<string | undefined> {
  const row = await db.kysely
    .selectFrom("events")
    .select("event_id")
    .where("issue_id", "=", issueId)
    .orderBy("received_at", "asc")
    .orderBy("id", "asc")
    .limit(1)
    .executeTakeFirst();
  return row?.event_id;
}

/** The row id and receive time of an event (for navigation), without its payload. */
export async function eventPosition(
  db: Db,
  projectId: number,
  eventId: string,
): Promise<{ id: number; issueId: number; receivedAt: number } | undefined> {
  const row = await db.kysely
    .selectFrom("events")
    .select(["id", "issue_id", "received_at"])
    .where("project_id", "=", projectId)
    .where("event_id", "=", eventId)
    .executeTakeFirst();
  return row ? { id: Number(row.id), issueId: Number(row.issue_id), receivedAt: Number(row.received_at) } : undefined;
}

/** Which issue (and project) holds this event id among these projects. */
export async function findEventIssue(
  db: Db,
  projectIds: number[],
  eventId: string,
): Promise<{ issueId: number; projectId: number } | undefined> {
  if (projectIds.length === 0) return undefined;
  const row = await db.kysely
    .selectFrom("events")
    .select(["issue_id", "project_id"])
    .where("project_id", "in", projectIds)
    .where("event_id", "=", eventId)
    .executeTakeFirst();
  return row ? { issueId: Number(row.issue_id), projectId: Number(row.project_id) } : undefined;
}

export interface MemberRow {
  id: string;
  email: string;
  name: string;
  role: string;
}

/** Members of an organization, by name (assignment menus). */
export async function listOrgMembers(db: Db, orgId: number): Promise<MemberRow[]> {
  // Better Auth's `user` table is not in our typed schema; narrow raw reads as in tokens.ts.
  const k = db.kysely as unknown as Kysely<{
    user: { id: string; email: string; name: string };
    members: { org_id: number; user_id: string; role: string };
  }>;
  const rows = await k
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select(["user.id", "user.email", "user.name", "members.role"])
    .where("members.org_id", "=", orgId)
    .orderBy("user.name")
    .limit(1000)
    .execute();
  return rows.map((r) => ({ id: r.id, email: r.email, name: r.name, role: r.role }));
}

export interface IssueFeedbackRow {
  id: number;
  eventId: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  createdAt: number;
}

/** User feedback naming any event of this issue, newest first. */
export async function listIssueFeedback(db: Db, issue: { id: number; projectId: number }, limit = 50): Promise<IssueFeedbackRow[]> {
  const rows = await db.kysely
    .selectFrom("user_feedback as f")
    .innerJoin("events as e", (j) => j.onRef("e.project_id", "=", "f.project_id").onRef("e.event_id", "=", "f.event_id"))
    .select(["f.id", "f.event_id", "f.name", "f.email", "f.comments", "f.url", "f.created_at"])
    .where("f.project_id", "=", issue.projectId)
    .where("e.issue_id", "=", issue.id)
    .orderBy("f.created_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    eventId: r.event_id,
    name: r.name,
    email: r.email,
    comments: r.comments,
    url: r.url,
    createdAt: Number(r.created_at),
  }));
}
