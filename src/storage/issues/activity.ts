/**
 * The activity log of issues (SPEC §3 Activity): every state change with its actor (null =
 * Errata), regressions, unignores, assignments, comments, merges, first-seen. Append-only except
 * when issues are merged (rows move to the survivor) or deleted (rows go with the issue).
 */
import type { Kysely } from "kysely";
import type { ActivityDraft, ActivityKind } from "../../core/issue-state/types";
import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface ActivityRow {
  id: number;
  issueId: number;
  projectId: number;
  actorUserId: string | null;
  kind: ActivityKind;
  data: Record<string, unknown>;
  createdAt: number;
}

export interface UserProfile {
  id: string;
  email: string;
  name: string;
}

// PostgreSQL rejects NUL in text; comments and SDK-derived values may carry one.
const clean = (s: string): string => (s.includes("\u0000") ? s.replaceAll("\u0000", "") : s);

function parseData(s: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Appends activity rows; returns their ids in order. */
export async function insertActivities(
  tx: Tx,
  issueId: number,
  projectId: number,
  drafts: ActivityDraft[],
  now: number,
): Promise<number[]> {
  if (drafts.length === 0) return [];
  const rows = await tx
    .insertInto("activity")
    .values(
      drafts.map((d) => ({
        issue_id: issueId,
        project_id: projectId,
        actor_user_id: d.actorUserId,
        kind: d.kind,
        data: clean(JSON.stringify(d.data)),
        created_at: now,
      })),
    )
    .returning("id")
    .execute();
  return rows.map((r) => Number(r.id));
}

/** An issue's activity, newest first. */
export async function listActivity(db: Db, issueId: number, opts: { kinds?: ActivityKind[]; limit?: number } = {}): Promise<ActivityRow[]> {
  let q = db.kysely
    .selectFrom("activity")
    .select(["id", "issue_id", "project_id", "actor_user_id", "kind", "data", "created_at"])
    .where("issue_id", "=", issueId);
  if (opts.kinds && opts.kinds.length > 0) q = q.where("kind", "in", opts.kinds);
  const rows = await q
    .orderBy("id", "desc")
    .limit(Math.max(1, Math.min(opts.limit ?? 500, 1000)))
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    issueId: Number(r.issue_id),
    projectId: Number(r.project_id),
    actorUserId: r.actor_user_id,
    kind: r.kind as ActivityKind,
    data: parseData(r.data),
    createdAt: Number(r.created_at),
  }));
}

/** Merges: the survivor inherits the merged issues' history. */
export async function moveActivity(tx: Tx, fromIssueIds: number[], toIssueId: number): Promise<void> {
  if (fromIssueIds.length === 0) return;
  await tx.updateTable("activity").set({ issue_id: toIssueId }).where("issue_id", "in", fromIssueIds).execute();
}

export async function deleteActivity(tx: Tx, issueIds: number[]): Promise<void> {
  if (issueIds.length === 0) return;
  await tx.deleteFrom("activity").where("issue_id", "in", issueIds).execute();
}

/** Profiles of the given users (Better Auth's `user` table, read narrowly as in tokens.ts). */
export async function findUserProfiles(db: Db | Tx, userIds: string[]): Promise<Map<string, UserProfile>> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return new Map();
  const k = ("kysely" in db ? db.kysely : db) as unknown as Kysely<{ user: { id: string; email: string; name: string } }>;
  const rows = await k.selectFrom("user").select(["id", "email", "name"]).where("id", "in", ids).execute();
  return new Map(rows.map((r) => [r.id, { id: r.id, email: r.email, name: r.name }]));
}
