/**
 * The notification outbox (0013). The digest inserts rows in the transaction that records the
 * trigger; the delivery loop claims due rows with a lease (SKIP LOCKED on PostgreSQL, so several
 * workers never take the same row; SQLite has one writer), sends, and records the result.
 */
import type { Db } from "../db";
import { type Tx, writeTx } from "../dialect";
import type { NotificationsTable } from "../schema";

/** `paired`: a Next.js message folded into its other side's (one notification names both). */
export type NotificationStatus = "pending" | "sent" | "failed" | "held" | "summarised" | "paired";

export interface NewNotification {
  projectId: number;
  ruleId: number | null;
  channelId: number;
  issueId: number | null;
  kind: "alert" | "digest" | "test" | "resolve";
  trigger: string | null;
  payload: string;
  status: "pending" | "held";
  deliveryId: string;
  now: number;
  /** not sent before this (epoch ms; default `now`): a Next.js message waiting for its other side or its burst */
  notBefore?: number;
  /** JSON RuleTarget: the row goes to people (channelId 0), found when it is delivered */
  target?: string | null;
}

export interface NotificationRow {
  id: number;
  projectId: number;
  ruleId: number | null;
  channelId: number;
  issueId: number | null;
  kind: string;
  trigger: string | null;
  payload: string;
  status: NotificationStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  responseStatus: number | null;
  responseBody: string | null;
  deliveryId: string;
  createdAt: number;
  sentAt: number | null;
  target: string | null;
}

type Row = Omit<NotificationsTable, "id" | "attempts"> & { id: number; attempts: number };

function toRow(r: Row): NotificationRow {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    ruleId: n(r.rule_id),
    channelId: Number(r.channel_id),
    issueId: n(r.issue_id),
    kind: r.kind,
    trigger: r.trigger,
    payload: r.payload,
    status: r.status as NotificationStatus,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    lastError: r.last_error,
    responseStatus: n(r.response_status),
    responseBody: r.response_body,
    deliveryId: r.delivery_id,
    createdAt: Number(r.created_at),
    sentAt: n(r.sent_at),
    target: r.target ?? null,
  };
}

export async function insertNotifications(tx: Tx, rows: NewNotification[]): Promise<void> {
  if (rows.length === 0) return;
  await tx
    .insertInto("notifications")
    .values(
      rows.map((r) => ({
        project_id: r.projectId,
        rule_id: r.ruleId,
        channel_id: r.channelId,
        issue_id: r.issueId,
        kind: r.kind,
        trigger: r.trigger,
        payload: r.payload,
        status: r.status,
        next_attempt_at: r.notBefore ?? r.now,
        delivery_id: r.deliveryId,
        created_at: r.now,
        target: r.target ?? null,
      })),
    )
    .execute();
}

/** Messages a rule queued since `since` (the hourly cap; held and summarised rows do not count). */
export async function ruleMessagesSince(tx: Tx, ruleId: number, since: number): Promise<number> {
  const r = await tx
    .selectFrom("notifications")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("rule_id", "=", ruleId)
    .where("created_at", ">=", since)
    .where("status", "in", ["pending", "sent", "failed"])
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

/**
 * Claims up to `limit` due pending rows: counts the attempt and sets a lease, committed before any
 * send, so a crash mid-send leaves the row to be claimed again after the lease.
 */
export async function claimDueNotifications(db: Db, now: number, limit: number, leaseMs: number): Promise<NotificationRow[]> {
  return writeTx(db, async (tx) => {
    let due = tx
      .selectFrom("notifications")
      .select("id")
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
      .orderBy("next_attempt_at")
      .orderBy("id")
      .limit(limit);
    if (db.dialect === "postgres") due = due.forUpdate().skipLocked();
    const ids = (await due.execute()).map((r) => Number(r.id));
    if (ids.length === 0) return [];
    const rows = await tx
      .updateTable("notifications")
      .set((eb) => ({ lease_until: now + leaseMs, attempts: eb("attempts", "+", 1) }))
      .where("id", "in", ids)
      .returningAll()
      .execute();
    return rows.map((r) => toRow(r as Row)).sort((a, b) => a.id - b.id);
  });
}

export interface DeliveryResult {
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

const clip = (s: string | null) => (s === null ? null : s.slice(0, 2000));

export async function markSent(db: Db, id: number, r: DeliveryResult, now: number): Promise<void> {
  await db.kysely
    .updateTable("notifications")
    .set({
      status: "sent",
      sent_at: now,
      lease_until: null,
      last_error: null,
      response_status: r.responseStatus,
      response_body: clip(r.responseBody),
    })
    .where("id", "=", id)
    .execute();
}

/** A failed attempt: pending again at `nextAt`, or `failed` for good when `nextAt` is null. */
export async function markAttemptFailed(db: Db, id: number, r: DeliveryResult, nextAt: number | null): Promise<void> {
  await db.kysely
    .updateTable("notifications")
    .set({
      status: nextAt === null ? "failed" : "pending",
      next_attempt_at: nextAt ?? undefined,
      lease_until: null,
      last_error: clip(r.error),
      response_status: r.responseStatus,
      response_body: clip(r.responseBody),
    })
    .where("id", "=", id)
    .execute();
}

/** "Retry now": a failed (or waiting) row goes back to pending, due now, with fresh attempts. */
export async function retryNotification(tx: Tx, projectId: number, id: number, now: number): Promise<boolean> {
  const res = await tx
    .updateTable("notifications")
    .set({ status: "pending", next_attempt_at: now, attempts: 0, lease_until: null })
    .where("id", "=", id)
    .where("project_id", "=", projectId)
    .where("status", "in", ["failed", "pending"])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function listNotifications(db: Db, projectId: number, q: { ruleId?: number; limit: number }): Promise<NotificationRow[]> {
  let query = db.kysely.selectFrom("notifications").selectAll().where("project_id", "=", projectId);
  if (q.ruleId !== undefined) query = query.where("rule_id", "=", q.ruleId);
  const rows = await query.orderBy("id", "desc").limit(q.limit).execute();
  return rows.map((r) => toRow(r as Row));
}

export async function findNotification(db: Db, id: number): Promise<NotificationRow | undefined> {
  const r = await db.kysely.selectFrom("notifications").selectAll().where("id", "=", id).executeTakeFirst();
  return r ? toRow(r as Row) : undefined;
}

/** A rule's alert rows about an issue created since `since`, newest first (Next.js pairing). */
export async function ruleAlertsOfIssue(tx: Tx, ruleId: number, issueId: number, since: number): Promise<NotificationRow[]> {
  const rows = await tx
    .selectFrom("notifications")
    .selectAll()
    .where("rule_id", "=", ruleId)
    .where("issue_id", "=", issueId)
    .where("kind", "=", "alert")
    .where("created_at", ">=", since)
    .orderBy("id", "desc")
    .limit(100)
    .execute();
  return rows.map((r) => toRow(r as Row));
}

/** Rewrites a message not sent yet (its other side arrived, its burst grew); `dueAt` moves it. */
export async function setNotificationPayload(tx: Tx, id: number, payload: string, dueAt?: number): Promise<void> {
  await tx
    .updateTable("notifications")
    .set({ payload, ...(dueAt !== undefined ? { next_attempt_at: dueAt } : {}) })
    .where("id", "=", id)
    .execute();
}

/** Rows folded into their other side's message: never sent on their own. */
export async function markPaired(tx: Tx, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.updateTable("notifications").set({ status: "paired", lease_until: null }).where("id", "in", ids).execute();
}

/** Rules with messages held back by the cap (oldest first). */
export async function rulesWithHeld(db: Db, limit: number): Promise<number[]> {
  const rows = await db.kysely
    .selectFrom("notifications")
    .select("rule_id")
    .where("status", "=", "held")
    .where("rule_id", "is not", null)
    .groupBy("rule_id")
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.rule_id));
}

export async function heldOfRule(tx: Tx, ruleId: number): Promise<NotificationRow[]> {
  const rows = await tx
    .selectFrom("notifications")
    .selectAll()
    .where("rule_id", "=", ruleId)
    .where("status", "=", "held")
    .orderBy("id")
    .execute();
  return rows.map((r) => toRow(r as Row));
}

export async function markSummarised(tx: Tx, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await tx
      .updateTable("notifications")
      .set({ status: "summarised" })
      .where("id", "in", ids.slice(i, i + 500))
      .execute();
  }
}

/**
 * The latest alert message each incident channel (PagerDuty, Opsgenie) got for an issue, by
 * channel: what a resolve of the issue must close (issue 30).
 */
export async function incidentAlertsOfIssue(
  tx: Tx,
  issueId: number,
  kinds: readonly string[],
): Promise<Array<{ channelId: number; ruleId: number | null; projectId: number; payload: string }>> {
  const rows = await tx
    .selectFrom("notifications as n")
    .innerJoin("alert_channels as c", "c.id", "n.channel_id")
    .select(["n.id", "n.channel_id", "n.rule_id", "n.project_id", "n.payload"])
    .where("n.issue_id", "=", issueId)
    .where("n.kind", "=", "alert")
    .where("c.kind", "in", [...kinds])
    .orderBy("n.id", "desc")
    .limit(200)
    .execute();
  const byChannel = new Map<number, { channelId: number; ruleId: number | null; projectId: number; payload: string }>();
  for (const r of rows) {
    const channelId = Number(r.channel_id);
    if (!byChannel.has(channelId))
      byChannel.set(channelId, {
        channelId,
        ruleId: r.rule_id === null ? null : Number(r.rule_id),
        projectId: Number(r.project_id),
        payload: r.payload,
      });
  }
  return [...byChannel.values()];
}
