/**
 * Storage of the issue lifecycle: reading and writing an issue's state (status, resolution,
 * ignore condition), assignment, the counts windowed ignores need, the sweep of due time-based
 * transitions, and the two structural operations — merge and delete.
 * Must not import ./issues (issues.ts imports this file).
 */
import { sql } from "kysely";
import { assigneeKey, parseAssignee } from "../../core/assignee";
import type { IssueState, IssueStatus, IssueSubstatus } from "../../core/issue-state/types";
import { parseIgnoreCondition, parseResolution } from "../../core/issue-state/update-input";
import type { Db, DialectName } from "../db";
import type { Tx } from "../dialect";
import { deleteEventRows } from "../events/retention";
import { deleteIssueStats, moveIssueStats } from "./stats";

/** The columns `toIssueState` reads (also used as RETURNING list by recordIssueEvent). */
export const lifecycleColumns = [
  "status",
  "substatus",
  "first_seen",
  "status_changed_at",
  "resolved_at",
  "resolution",
  "ignore_details",
  "event_count",
  "user_count",
] as const;

export interface LifecycleSelect {
  status: string;
  substatus: string;
  first_seen: number;
  status_changed_at: number | null;
  resolved_at: number | null;
  resolution: string | null;
  ignore_details: string | null;
  event_count: number;
  user_count: number;
}

function parseJson(s: string | null): unknown {
  if (s === null) return null;
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

const STATUSES = new Set(["unresolved", "resolved", "ignored"]);

export function toIssueState(r: LifecycleSelect): IssueState {
  return {
    status: (STATUSES.has(r.status) ? r.status : "unresolved") as IssueStatus,
    substatus: r.substatus as IssueSubstatus,
    firstSeen: Number(r.first_seen),
    statusChangedAt: r.status_changed_at === null ? null : Number(r.status_changed_at),
    resolvedAt: r.resolved_at === null ? null : Number(r.resolved_at),
    resolution: parseResolution(parseJson(r.resolution)),
    ignore: parseIgnoreCondition(parseJson(r.ignore_details)),
    eventCount: Number(r.event_count),
    userCount: Number(r.user_count),
  };
}

export interface LockedIssue {
  id: number;
  projectId: number;
  assigneeUserId: string | null;
  state: IssueState;
}

/**
 * Reads an issue's state for a read-modify-write. PostgreSQL locks the row (FOR UPDATE); SQLite's
 * write transaction is exclusive already.
 */
export async function readIssueForUpdate(tx: Tx, dialect: DialectName, issueId: number): Promise<LockedIssue | undefined> {
  let q = tx
    .selectFrom("issues")
    .select(["id", "project_id", "assignee_user_id", "assignee_team_id", ...lifecycleColumns])
    .where("id", "=", issueId);
  if (dialect === "postgres") q = q.forUpdate();
  const r = await q.executeTakeFirst();
  if (!r) return undefined;
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    assigneeUserId: assigneeKey(r.assignee_user_id, r.assignee_team_id),
    state: toIssueState(r),
  };
}

/**
 * Writes a new state. With `expect`, only when the issue is still in that state (every state
 * write sets status_changed_at, so it detects any change made meanwhile by another process);
 * returns whether the row was written.
 */
export async function writeIssueState(
  tx: Tx,
  issueId: number,
  state: IssueState,
  dueAt: number | null,
  expect?: { status: string; substatus: string; statusChangedAt: number | null },
): Promise<boolean> {
  let q = tx
    .updateTable("issues")
    .set({
      status: state.status,
      substatus: state.substatus,
      status_changed_at: state.statusChangedAt,
      resolved_at: state.resolvedAt,
      resolution: state.resolution ? JSON.stringify(state.resolution) : null,
      ignore_details: state.ignore ? JSON.stringify(state.ignore) : null,
      due_at: dueAt,
    })
    .where("id", "=", issueId);
  if (expect) {
    const changedAt = expect.statusChangedAt;
    q = q
      .where("status", "=", expect.status)
      .where("substatus", "=", expect.substatus)
      .where((eb) => (changedAt === null ? eb("status_changed_at", "is", null) : eb("status_changed_at", "=", changedAt)));
  }
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0) > 0;
}

/** Sets the assignee: a member's user id, a team (`team:<id>`, core/assignee.ts) or nobody. */
export async function setAssignee(tx: Tx, issueId: number, assignee: string | null): Promise<void> {
  const target = assignee === null ? undefined : parseAssignee(assignee);
  await tx
    .updateTable("issues")
    .set({
      assignee_user_id: target?.kind === "user" ? target.userId : null,
      assignee_team_id: target?.kind === "team" ? target.teamId : null,
    })
    .where("id", "=", issueId)
    .execute();
}

/** Events and distinct users of an issue received since `since` (windowed ignore conditions). */
export async function issueWindowCounts(tx: Tx, issueId: number, since: number): Promise<{ events: number; users: number }> {
  const row = await tx
    .selectFrom("events")
    .select((eb) => [eb.fn.countAll<number>().as("events"), eb.fn.count<number>("user_key").distinct().as("users")])
    .where("issue_id", "=", issueId)
    .where("received_at", ">=", since)
    .executeTakeFirst();
  return { events: Number(row?.events ?? 0), users: Number(row?.users ?? 0) };
}

export interface DueIssue {
  id: number;
  projectId: number;
  state: IssueState;
}

/**
 * Issues whose time-based transition may be due: `due_at` passed, or still `new` although first
 * seen before `newBefore` (issues are created without `due_at`). Both lookups are indexed.
 */
export async function findDueIssues(db: Db, q: { now: number; newBefore: number; limit: number }): Promise<DueIssue[]> {
  const cols = ["id", "project_id", ...lifecycleColumns] as const;
  const due = await db.kysely.selectFrom("issues").select(cols).where("due_at", "<=", q.now).orderBy("due_at").limit(q.limit).execute();
  const aged = await db.kysely
    .selectFrom("issues")
    .select(cols)
    .where("substatus", "=", "new")
    .where("first_seen", "<=", q.newBefore)
    .where("status", "=", "unresolved")
    .orderBy("first_seen")
    .limit(q.limit)
    .execute();
  const seen = new Set<number>();
  const out: DueIssue[] = [];
  for (const r of [...due, ...aged]) {
    const id = Number(r.id);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ id, projectId: Number(r.project_id), state: toIssueState(r) });
  }
  return out;
}

/** Clears a stale `due_at` (the sweep found nothing due: e.g. unresolved by hand meanwhile). */
export async function clearDueAt(tx: Tx, issueId: number, dueAt: number | null): Promise<void> {
  await tx.updateTable("issues").set({ due_at: dueAt }).where("id", "=", issueId).execute();
}

// ---------------------------------------------------------------------------------------------
// Merge

/** Moves up to `limit` events of the merged issues to the survivor (chunks keep transactions short). */
export async function moveEventsChunk(tx: Tx, fromIssueIds: number[], toIssueId: number, limit: number): Promise<number> {
  if (fromIssueIds.length === 0) return 0;
  const ids = await tx.selectFrom("events").select(["id", "event_id"]).where("issue_id", "in", fromIssueIds).limit(limit).execute();
  if (ids.length === 0) return 0;
  await tx
    .updateTable("events")
    .set({ issue_id: toIssueId })
    .where(
      "id",
      "in",
      ids.map((r) => Number(r.id)),
    )
    .execute();
  await moveReplayErrorLinks(
    tx,
    fromIssueIds,
    toIssueId,
    ids.map((r) => r.event_id),
  );
  return ids.length;
}

/**
 * The replays an error appears in are found by its issue (replay_errors.issue_id, written when the
 * error is digested): events that change issue take their links along in the same transaction,
 * so an issue's replay list and count never miss a session after a merge or unmerge.
 */
export async function moveReplayErrorLinks(tx: Tx, fromIssueIds: number[], toIssueId: number, eventIds?: string[]): Promise<void> {
  if (fromIssueIds.length === 0 || eventIds?.length === 0) return;
  let q = tx.updateTable("replay_errors").set({ issue_id: toIssueId }).where("issue_id", "in", fromIssueIds);
  if (eventIds) q = q.where("event_id", "in", eventIds);
  await q.execute();
}

/** What a merge's activity entry says of each merged issue (read under the merge's locks). */
export async function mergedIssueLabels(tx: Tx, ids: number[]): Promise<Array<{ id: number; shortId: number; title: string }>> {
  if (ids.length === 0) return [];
  const rows = await tx.selectFrom("issues").select(["id", "short_id", "title"]).where("id", "in", ids).orderBy("id").execute();
  return rows.map((r) => ({ id: Number(r.id), shortId: Number(r.short_id), title: r.title }));
}

interface MergeSource {
  id: number;
  first_seen: number;
  last_seen: number;
  event_count: number;
  first_event_id: string | null;
  last_event_id: string | null;
  first_release: string | null;
  last_release: string | null;
  last_release_seen: number | null;
  level: string;
}

/** The merged issues' newest release: by the time it was seen, else (before migration 0026) by last_seen. */
function newestReleaseOf(byLast: MergeSource[]): { last_release: string | null; last_release_seen: number | null } {
  // A release without its time (null) ranks below every timed one; ties keep the byLast order.
  const rank = (r: MergeSource) => r.last_release_seen ?? -1;
  let best: MergeSource | undefined;
  for (const r of byLast) if (r.last_release !== null && (best === undefined || rank(r) > rank(best))) best = r;
  return { last_release: best?.last_release ?? null, last_release_seen: best?.last_release_seen ?? null };
}

/**
 * Makes `others` part of `primaryId`: hashes (later events of any merged hash land on the
 * survivor), remaining events, users (deduplicated; user_count recounted), counters summed,
 * first/last seen, event and release widened; the merged issue rows are removed.
 * Activity is moved by the caller (activity.ts).
 */
export async function mergeIssueRows(tx: Tx, primaryId: number, others: number[]): Promise<void> {
  if (others.length === 0) return;
  const all = [primaryId, ...others];
  const rows = (
    await tx
      .selectFrom("issues")
      .select([
        "id",
        "first_seen",
        "last_seen",
        "event_count",
        "first_event_id",
        "last_event_id",
        "first_release",
        "last_release",
        "last_release_seen",
        "level",
      ])
      .where("id", "in", all)
      .execute()
  ).map(
    (r): MergeSource => ({
      ...r,
      id: Number(r.id),
      first_seen: Number(r.first_seen),
      last_seen: Number(r.last_seen),
      event_count: Number(r.event_count),
      last_release_seen: r.last_release_seen === null ? null : Number(r.last_release_seen),
    }),
  );
  await tx.updateTable("issue_hashes").set({ issue_id: primaryId }).where("issue_id", "in", others).execute();
  await moveReplayErrorLinks(tx, others, primaryId);
  await tx.updateTable("events").set({ issue_id: primaryId }).where("issue_id", "in", others).execute();
  await tx
    .insertInto("issue_users")
    .columns(["issue_id", "user_key"])
    .expression((eb) =>
      // A literal, not a parameter: PostgreSQL would type a bare parameter in a select list as text.
      eb
        .selectFrom("issue_users")
        .select([sql.lit(Math.trunc(primaryId)).as("issue_id"), "user_key"])
        .where("issue_id", "in", others),
    )
    .onConflict((oc) => oc.columns(["issue_id", "user_key"]).doNothing())
    .execute();
  await tx.deleteFrom("issue_users").where("issue_id", "in", others).execute();
  const users = await tx
    .selectFrom("issue_users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("issue_id", "=", primaryId)
    .executeTakeFirst();

  const byFirst = [...rows].sort((a, b) => a.first_seen - b.first_seen || a.id - b.id);
  const byLast = [...rows].sort((a, b) => b.last_seen - a.last_seen || b.id - a.id);
  const first = byFirst[0] as MergeSource;
  const last = byLast[0] as MergeSource;
  await tx
    .updateTable("issues")
    .set({
      first_seen: first.first_seen,
      last_seen: last.last_seen,
      event_count: rows.reduce((n, r) => n + r.event_count, 0),
      user_count: Number(users?.n ?? 0),
      first_event_id: byFirst.find((r) => r.first_event_id !== null)?.first_event_id ?? null,
      last_event_id: byLast.find((r) => r.last_event_id !== null)?.last_event_id ?? null,
      first_release: byFirst.find((r) => r.first_release !== null)?.first_release ?? null,
      ...newestReleaseOf(byLast),
      level: last.level,
    })
    .where("id", "=", primaryId)
    .execute();
  // Sparklines, trend and tag distributions of the merged issues join the survivor's.
  await moveIssueStats(tx, others, primaryId);
  await tx.deleteFrom("issues").where("id", "in", others).execute();
}

// ---------------------------------------------------------------------------------------------
// Delete

/** Deletes up to `limit` events of an issue (deleting a big issue happens in short transactions). */
export async function deleteIssueEventsChunk(tx: Tx, issueId: number, limit: number): Promise<number> {
  const rows = await tx
    .selectFrom("events")
    .select(["id", "project_id", "event_id", "received_at"])
    .where("issue_id", "=", issueId)
    .limit(limit)
    .execute();
  await deleteEventRows(tx, rows);
  return rows.length;
}

/** Removes what is left of an issue: events, hashes (future events start a new issue), users, activity, the row. */
export async function deleteIssueCompletely(tx: Tx, issueId: number): Promise<void> {
  // Events that arrived during the chunked delete (few): with their attachments.
  while ((await deleteIssueEventsChunk(tx, issueId, 500)) > 0) {}
  await tx.deleteFrom("issue_hashes").where("issue_id", "=", issueId).execute();
  await tx.deleteFrom("issue_users").where("issue_id", "=", issueId).execute();
  await tx.deleteFrom("activity").where("issue_id", "=", issueId).execute();
  await deleteIssueStats(tx, [issueId]);
  // The replays keep listing the error (Sentry's error_ids); it no longer has an issue.
  await tx.updateTable("replay_errors").set({ issue_id: null }).where("issue_id", "=", issueId).execute();
  await tx.deleteFrom("issues").where("id", "=", issueId).execute();
}

// ---------------------------------------------------------------------------------------------
// Members (assignment)

/** A member of the organization by user id or email (case-insensitive), or undefined. */
export async function findOrgMember(
  db: Db | Tx,
  orgId: number,
  idOrEmail: string,
): Promise<{ id: string; email: string; name: string } | undefined> {
  // Better Auth's `user` table is not in our typed schema; narrow raw reads as in tokens.ts.
  const k = ("kysely" in db ? db.kysely : db) as unknown as import("kysely").Kysely<{
    user: { id: string; email: string; name: string };
    members: { org_id: number; user_id: string };
  }>;
  const base = k
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select(["user.id", "user.email", "user.name"])
    .where("members.org_id", "=", orgId);
  const row = idOrEmail.includes("@")
    ? await base.where(sql`lower(${sql.ref("user.email")})`, "=", idOrEmail.toLowerCase()).executeTakeFirst()
    : await base.where("user.id", "=", idOrEmail).executeTakeFirst();
  return row ?? undefined;
}
