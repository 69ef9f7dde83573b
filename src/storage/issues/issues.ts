/**
 * Issues: the write side used inside the digest transaction (find by hash, create with a short id,
 * count events and users) and the read side used by the services layer (list, get, count).
 */
import { type ExpressionBuilder, sql } from "kysely";
import { assigneeKey } from "../../core/assignee";
import type { IgnoreCondition, IssueState, Resolution } from "../../core/issue-state/types";
import type { Db } from "../db";
import { chunks, type Tx } from "../dialect";
import type { Database } from "../schema";
import { lifecycleColumns, toIssueState } from "./lifecycle";

// ---------------------------------------------------------------------------------------------
// Types

export interface IssueRow {
  id: number;
  projectId: number;
  /** numeric part of the short id; the services layer prefixes the project slug (`WEB-12`) */
  shortId: number;
  title: string;
  culprit: string;
  type: string;
  level: string;
  status: string;
  substatus: string;
  firstSeen: number;
  lastSeen: number;
  eventCount: number;
  userCount: number;
  metadata: Record<string, unknown>;
  firstEventId: string | null;
  lastEventId: string | null;
  firstRelease: string | null;
  lastRelease: string | null;
  /** lifecycle (src/core/issue-state): set while resolved / ignored */
  resolution: Resolution | null;
  ignore: IgnoreCondition | null;
  resolvedAt: number | null;
  assigneeUserId: string | null;
  /** the first event's platform (Sentry's issue `platform`); null: the project's */
  platform: string | null;
}

export interface NewIssue {
  projectId: number;
  title: string;
  culprit: string;
  type: string;
  level: string;
  metadata: Record<string, unknown>;
  /** epoch ms of the first event */
  seenAt: number;
  release: string | null;
  hashes: string[];
  groupingVersion: string;
  /** a number kept from elsewhere (an import); the caller made sure it is free and the counter above it */
  shortId?: number;
  /** the first event's platform */
  platform?: string | null;
}

export interface IssueEventUpdate {
  /** epoch ms */
  seenAt: number;
  level: string;
  eventId: string;
  release: string | null;
  /** true when the event's user had not been counted on this issue yet */
  newUser: boolean;
}

// PostgreSQL rejects NUL in text columns; SDK strings occasionally carry one.
const clean = (s: string): string => (s.includes("\u0000") ? s.replaceAll("\u0000", "") : s);
const cleanOrNull = (s: string | null): string | null => (s === null ? null : clean(s));

// ---------------------------------------------------------------------------------------------
// Writes (inside the digest transaction)

/** The issue owning any of these hashes in the project, if one exists. */
export async function findIssueIdByHashes(tx: Tx, projectId: number, hashes: string[]): Promise<number | undefined> {
  if (hashes.length === 0) return undefined;
  const row = await tx
    .selectFrom("issue_hashes")
    .select("issue_id")
    .where("project_id", "=", projectId)
    .where("hash", "in", hashes)
    .orderBy("issue_id")
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.issue_id) : undefined;
}

/**
 * The issue owning these hashes, by priority: the first hash (in the order given) that has an
 * owner decides. Also returns every given hash already registered in the project, so the caller
 * can register the others on the issue (the grouping variants and transition hashes of one event
 * must all point to the issue it joined). One query.
 */
export async function findIssueByHashes(
  tx: Tx,
  projectId: number,
  hashes: string[],
): Promise<{ issueId: number; known: Set<string> } | undefined> {
  if (hashes.length === 0) return undefined;
  const rows = await tx
    .selectFrom("issue_hashes")
    .select(["hash", "issue_id"])
    .where("project_id", "=", projectId)
    .where("hash", "in", hashes)
    .execute();
  if (rows.length === 0) return undefined;
  const owner = new Map(rows.map((r) => [r.hash, Number(r.issue_id)]));
  const first = hashes.find((h) => owner.has(h)) as string;
  return { issueId: owner.get(first) as number, known: new Set(owner.keys()) };
}

/**
 * Takes the project's next short id atomically (the UPDATE row-locks the project on PostgreSQL;
 * SQLite's write transaction is exclusive anyway).
 */
export async function allocateShortId(tx: Tx, projectId: number): Promise<number> {
  const row = await tx
    .updateTable("projects")
    .set({ next_short_id: sql`next_short_id + 1` })
    .where("id", "=", projectId)
    .returning("next_short_id")
    .executeTakeFirst();
  if (!row) throw new Error(`Project ${projectId} does not exist`);
  return Number(row.next_short_id) - 1;
}

/**
 * Creates an issue (no events counted yet) and registers its hashes. When another worker created
 * an issue for the same hash concurrently (PostgreSQL with several workers), ours is removed and
 * theirs returned: `{ created: false }`.
 */
export async function insertIssue(tx: Tx, issue: NewIssue): Promise<{ id: number; created: boolean }> {
  const shortId = issue.shortId ?? (await allocateShortId(tx, issue.projectId));
  const row = await tx
    .insertInto("issues")
    .values({
      project_id: issue.projectId,
      short_id: shortId,
      title: clean(issue.title),
      culprit: clean(issue.culprit),
      type: issue.type,
      level: issue.level,
      status: "unresolved",
      substatus: "new",
      first_seen: issue.seenAt,
      last_seen: issue.seenAt,
      event_count: 0,
      user_count: 0,
      metadata: clean(JSON.stringify(issue.metadata)),
      first_event_id: null,
      last_event_id: null,
      first_release: cleanOrNull(issue.release),
      last_release: cleanOrNull(issue.release),
      last_release_seen: issue.release ? issue.seenAt : null,
      platform: cleanOrNull(issue.platform ?? null),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  const inserted = await addIssueHashes(tx, issue.projectId, id, issue.hashes, issue.groupingVersion);
  if (inserted > 0 || issue.hashes.length === 0) return { id, created: true };
  // Every hash already belonged to someone else: lost a race. Keep theirs.
  const existing = await findIssueIdByHashes(tx, issue.projectId, issue.hashes);
  await tx.deleteFrom("issues").where("id", "=", id).execute();
  if (existing === undefined) throw new Error("issue hash conflict without an owner");
  return { id: existing, created: false };
}

/** Registers hashes for an issue; hashes already owned (by it or another issue) are left alone. */
export async function addIssueHashes(
  tx: Tx,
  projectId: number,
  issueId: number,
  hashes: string[],
  groupingVersion: string,
): Promise<number> {
  let inserted = 0;
  for (const hash of hashes) {
    const res = await tx
      .insertInto("issue_hashes")
      .values({ project_id: projectId, hash, issue_id: issueId, grouping_version: groupingVersion })
      .onConflict((oc) => oc.columns(["project_id", "hash"]).doNothing())
      .executeTakeFirst();
    inserted += Number(res.numInsertedOrUpdatedRows ?? 0);
  }
  return inserted;
}

/**
 * Counts a user on an issue exactly once. Returns true when the user is new to the issue.
 */
export async function addIssueUser(tx: Tx, issueId: number, userKey: string): Promise<boolean> {
  return (await addIssueUsers(tx, [{ issueId, userKey }])).size > 0;
}

/**
 * Counts users on issues exactly once, one statement per chunk (a digest batch's stored events).
 * Returns the pairs new to their issue as `issueUserKey` keys; a pair given twice is new once.
 */
export async function addIssueUsers(tx: Tx, pairs: Array<{ issueId: number; userKey: string }>): Promise<Set<string>> {
  const fresh = new Set<string>();
  const unique = new Map(pairs.map((p) => [issueUserKey(p.issueId, p.userKey), p]));
  for (const part of chunks([...unique.values()])) {
    const rows = await tx
      .insertInto("issue_users")
      .values(part.map((p) => ({ issue_id: p.issueId, user_key: clean(p.userKey) })))
      .onConflict((oc) => oc.columns(["issue_id", "user_key"]).doNothing())
      .returning(["issue_id", "user_key"])
      .execute();
    for (const r of rows) fresh.add(issueUserKey(Number(r.issue_id), r.user_key));
  }
  return fresh;
}

/** How addIssueUsers names a pair (the stored, cleaned user key). */
export function issueUserKey(issueId: number, userKey: string): string {
  return `${issueId}\u0000${clean(userKey)}`;
}

/**
 * The issue's last event becomes this one only if it is at least as new as the issue's last_seen
 * (SET expressions read the row as it was). Batches of two digest threads or worker processes
 * can commit out of order; the older batch committing last must not name an older event as the
 * latest.
 */
function newestEventId(seenAt: number, eventId: string) {
  return sql<string>`case when last_event_id is null or last_seen <= ${seenAt} then ${eventId} else last_event_id end`;
}

/**
 * The release of the newest event that has one: `last_release_seen` is that event's time, so an
 * older event committing late leaves a newer release alone (null: not known yet, any one sets it).
 */
function newestRelease(seenAt: number, release: string) {
  const newer = sql`last_release_seen is null or last_release_seen <= ${seenAt}`;
  return {
    last_release: sql<string>`case when ${newer} then ${release} else last_release end`,
    last_release_seen: sql<number>`case when ${newer} then ${seenAt} else last_release_seen end`,
  };
}

/** The level of the newest event, as the last event's id (an older batch committing late keeps it). */
function newestLevel(seenAt: number, level: string) {
  return sql<string>`case when last_seen <= ${seenAt} then ${level} else level end`;
}

/**
 * Counts a stored event on its issue: counters, last seen, level, last event and release. Returns
 * the issue's lifecycle state after the update (RETURNING: no extra round trip), undefined when
 * the issue no longer exists (merged or deleted meanwhile).
 */
export async function recordIssueEvent(tx: Tx, issueId: number, u: IssueEventUpdate): Promise<IssueState | undefined> {
  const release = cleanOrNull(u.release);
  const row = await tx
    .updateTable("issues")
    .set((eb) => ({
      event_count: sql`event_count + 1`,
      user_count: u.newUser ? sql`user_count + 1` : sql`user_count`,
      // Events may be digested out of order (retries): last_seen only moves forward.
      last_seen: sql`case when last_seen < ${u.seenAt} then ${u.seenAt} else last_seen end`,
      first_seen: sql`case when first_seen > ${u.seenAt} then ${u.seenAt} else first_seen end`,
      level: newestLevel(u.seenAt, u.level),
      last_event_id: newestEventId(u.seenAt, u.eventId),
      first_event_id: eb.fn.coalesce("first_event_id", sql<string>`${u.eventId}`),
      ...(release !== null
        ? { ...newestRelease(u.seenAt, release), first_release: eb.fn.coalesce("first_release", sql<string>`${release}`) }
        : {}),
    }))
    .where("id", "=", issueId)
    .returning(lifecycleColumns)
    .executeTakeFirst();
  return row ? toIssueState(row) : undefined;
}

/** Several stored events of one issue, counted with one statement (the digest's batch). */
export interface IssueEventsUpdate {
  count: number;
  newUsers: number;
  /** epoch ms, the earliest and latest seenAt of these events */
  minSeen: number;
  maxSeen: number;
  /** the newest event's, as lastEventId */
  level: string;
  /** the newest event's (largest seenAt; on a tie the later in digest order) */
  lastEventId: string;
  firstEventId: string;
  /** the first non-null release in digest order, and the newest event's that has one, if any */
  firstRelease: string | null;
  lastRelease: string | null;
  /** epoch ms of the event lastRelease comes from */
  lastReleaseSeen: number | null;
}

/**
 * Counts several events on an issue at once; the same end state as `recordIssueEvent` called for
 * each of them in order (counters add up, last_seen/first_seen only widen, the newest event's level,
 * id and release win, the first ones fill what is still empty).
 */
export async function recordIssueEvents(tx: Tx, issueId: number, u: IssueEventsUpdate): Promise<void> {
  if (u.count === 0) return;
  const firstRelease = cleanOrNull(u.firstRelease);
  const lastRelease = cleanOrNull(u.lastRelease);
  await tx
    .updateTable("issues")
    .set((eb) => ({
      event_count: sql`event_count + ${u.count}`,
      user_count: sql`user_count + ${u.newUsers}`,
      last_seen: sql`case when last_seen < ${u.maxSeen} then ${u.maxSeen} else last_seen end`,
      first_seen: sql`case when first_seen > ${u.minSeen} then ${u.minSeen} else first_seen end`,
      level: newestLevel(u.maxSeen, u.level),
      last_event_id: newestEventId(u.maxSeen, u.lastEventId),
      first_event_id: eb.fn.coalesce("first_event_id", sql<string>`${u.firstEventId}`),
      ...(lastRelease !== null && u.lastReleaseSeen !== null ? newestRelease(u.lastReleaseSeen, lastRelease) : {}),
      ...(firstRelease !== null ? { first_release: eb.fn.coalesce("first_release", sql<string>`${firstRelease}`) } : {}),
    }))
    .where("id", "=", issueId)
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Reads

export const issueColumns = [
  "id",
  "project_id",
  "short_id",
  "title",
  "culprit",
  "type",
  "level",
  "status",
  "substatus",
  "first_seen",
  "last_seen",
  "event_count",
  "user_count",
  "metadata",
  "first_event_id",
  "last_event_id",
  "first_release",
  "last_release",
  "resolution",
  "ignore_details",
  "resolved_at",
  "status_changed_at",
  "assignee_user_id",
  "assignee_team_id",
  "platform",
] as const;

export interface IssueSelect {
  id: number;
  project_id: number;
  short_id: number;
  title: string;
  culprit: string;
  type: string;
  level: string;
  status: string;
  substatus: string;
  first_seen: number;
  last_seen: number;
  event_count: number;
  user_count: number;
  metadata: string;
  first_event_id: string | null;
  last_event_id: string | null;
  first_release: string | null;
  last_release: string | null;
  resolution: string | null;
  ignore_details: string | null;
  resolved_at: number | null;
  status_changed_at: number | null;
  assignee_user_id: string | null;
  assignee_team_id: number | null;
  platform: string | null;
}

function parseMetadata(s: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function toIssue(r: IssueSelect): IssueRow {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    shortId: Number(r.short_id),
    title: r.title,
    culprit: r.culprit,
    type: r.type,
    level: r.level,
    status: r.status,
    substatus: r.substatus,
    firstSeen: Number(r.first_seen),
    lastSeen: Number(r.last_seen),
    eventCount: Number(r.event_count),
    userCount: Number(r.user_count),
    metadata: parseMetadata(r.metadata),
    firstEventId: r.first_event_id,
    lastEventId: r.last_event_id,
    firstRelease: r.first_release,
    lastRelease: r.last_release,
    platform: r.platform ?? null,
    ...lifecycleOf(r),
  };
}

function lifecycleOf(r: IssueSelect): Pick<IssueRow, "resolution" | "ignore" | "resolvedAt" | "assigneeUserId"> {
  const state = toIssueState(r);
  return {
    resolution: state.resolution,
    ignore: state.ignore,
    resolvedAt: state.resolvedAt,
    assigneeUserId: assigneeKey(r.assignee_user_id, r.assignee_team_id),
  };
}

/** `is:regressed` is a substatus of unresolved issues; the other statuses are columns. */
function statusFilter(status: string) {
  return (eb: ExpressionBuilder<Database, "issues">) =>
    status === "regressed" ? eb.and([eb("status", "=", "unresolved"), eb("substatus", "=", "regressed")]) : eb("status", "=", status);
}

export async function countIssues(db: Db, q: { projectIds: number[]; status?: string }): Promise<number> {
  if (q.projectIds.length === 0) return 0;
  let query = db.kysely
    .selectFrom("issues")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "in", q.projectIds);
  if (q.status) query = query.where(statusFilter(q.status));
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function getIssue(db: Db, id: number): Promise<IssueRow | undefined> {
  const row = await db.kysely.selectFrom("issues").select(issueColumns).where("id", "=", id).executeTakeFirst();
  return row ? toIssue(row) : undefined;
}

/** When the project's first issue was first seen (its first event; null before any). */
export async function firstSeenOfProject(db: Db, projectId: number): Promise<number | null> {
  const row = await db.kysely
    .selectFrom("issues")
    .select((eb) => eb.fn.min<number>("first_seen").as("t"))
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  return row?.t == null ? null : Number(row.t);
}

export async function getIssueByShortId(db: Db, projectId: number, shortId: number): Promise<IssueRow | undefined> {
  const row = await db.kysely
    .selectFrom("issues")
    .select(issueColumns)
    .where("project_id", "=", projectId)
    .where("short_id", "=", shortId)
    .executeTakeFirst();
  return row ? toIssue(row) : undefined;
}

/** The project's earliest issue: the one its first event opened (lowest short id; (project, short id) is indexed). */
export async function getFirstIssue(db: Db, projectId: number): Promise<IssueRow | undefined> {
  const row = await db.kysely
    .selectFrom("issues")
    .select(issueColumns)
    .where("project_id", "=", projectId)
    .orderBy("short_id", "asc")
    .limit(1)
    .executeTakeFirst();
  return row ? toIssue(row) : undefined;
}

/** The grouping hashes of an issue (for "why grouped here" and for merges). */
export async function listIssueHashes(db: Db, issueId: number): Promise<Array<{ hash: string; groupingVersion: string }>> {
  const rows = await db.kysely
    .selectFrom("issue_hashes")
    .select(["hash", "grouping_version"])
    .where("issue_id", "=", issueId)
    .orderBy("hash")
    .execute();
  return rows.map((r) => ({ hash: r.hash, groupingVersion: r.grouping_version }));
}

/** Removes an issue with its hashes and user set (events must already be gone or moved). */
export async function deleteIssueRows(tx: Tx, issueId: number): Promise<void> {
  await tx.deleteFrom("issue_hashes").where("issue_id", "=", issueId).execute();
  await tx.deleteFrom("issue_users").where("issue_id", "=", issueId).execute();
  await tx.deleteFrom("issues").where("id", "=", issueId).execute();
}
