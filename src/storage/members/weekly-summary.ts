/**
 * What the weekly summary reads and records (0039-owner-routing): the members to mail (not opted
 * out), each project's week, and the per-(member, organization, week) send rows that make the job
 * idempotent. Which projects a member hears about is storage/members/project-visibility.ts's answer.
 */
import type { Kysely } from "kysely";
import type { ProjectWeek } from "../../core/weekly-summary";
import type { Db } from "../db";
import type { Tx } from "../dialect";

type People = Kysely<{
  user: { id: string; email: string; name: string };
  members: { org_id: number; user_id: string };
  organizations: { id: number; slug: string; name: string };
  weekly_summary_optouts: { user_id: string };
}>;

export interface SummaryRecipient {
  userId: string;
  email: string;
  name: string;
  orgId: number;
  orgSlug: string;
  orgName: string;
}

/** Every (member, organization) whose member did not turn the summary off, at most `limit`. */
export async function summaryRecipients(db: Db, limit: number): Promise<SummaryRecipient[]> {
  const rows = await (db.kysely as unknown as People)
    .selectFrom("members as m")
    .innerJoin("user as u", "u.id", "m.user_id")
    .innerJoin("organizations as o", "o.id", "m.org_id")
    .leftJoin("weekly_summary_optouts as x", "x.user_id", "m.user_id")
    .select(["m.user_id", "u.email", "u.name", "o.id as org_id", "o.slug", "o.name as org_name"])
    .where("x.user_id", "is", null)
    .orderBy("o.id")
    .orderBy("m.user_id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    userId: r.user_id,
    email: r.email,
    name: r.name,
    orgId: Number(r.org_id),
    orgSlug: r.slug,
    orgName: r.org_name,
  }));
}

const TOP = 5;

/** One project's week [from, to): new issues, regressions, busiest issues, crash-free by release. */
export async function projectWeek(db: Db, p: { id: number; slug: string; name: string }, from: number, to: number): Promise<ProjectWeek> {
  const k = db.kysely;
  const sid = (n: number) => `${p.slug.toUpperCase()}-${n}`;
  const newCount = await k
    .selectFrom("issues")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", p.id)
    .where("first_seen", ">=", from)
    .where("first_seen", "<", to)
    .executeTakeFirst();
  const newTop = await k
    .selectFrom("issues")
    .select(["id", "short_id", "title"])
    .where("project_id", "=", p.id)
    .where("first_seen", ">=", from)
    .where("first_seen", "<", to)
    .orderBy("event_count", "desc")
    .orderBy("id")
    .limit(TOP)
    .execute();
  const regressed = await k
    .selectFrom("activity as a")
    .innerJoin("issues as i", "i.id", "a.issue_id")
    .select(["i.id", "i.short_id", "i.title"])
    .distinct()
    .where("a.project_id", "=", p.id)
    .where("a.kind", "=", "regression")
    .where("a.created_at", ">=", from)
    .where("a.created_at", "<", to)
    .orderBy("i.id")
    .limit(1_000)
    .execute();
  const busiest = await k
    .selectFrom("issue_hourly as h")
    .innerJoin("issues as i", "i.id", "h.issue_id")
    .select((eb) => ["i.id", "i.short_id", "i.title", eb.fn.sum<number>("h.count").as("events")])
    .where("i.project_id", "=", p.id)
    .where("h.hour", ">=", from)
    .where("h.hour", "<", to)
    .groupBy(["i.id", "i.short_id", "i.title"])
    .orderBy("events", "desc")
    .orderBy("i.id")
    .limit(TOP)
    .execute();
  const releases = await k
    .selectFrom("session_aggregates")
    .select((eb) => ["release", eb.fn.sum<number>("total").as("sessions"), eb.fn.sum<number>("crashed").as("crashed")])
    .where("project_id", "=", p.id)
    .where("hour", ">=", from)
    .where("hour", "<", to)
    .groupBy("release")
    .orderBy("sessions", "desc")
    .limit(TOP)
    .execute();
  const issue = (r: { id: number; short_id: number; title: string }) => ({
    id: Number(r.id),
    shortId: sid(Number(r.short_id)),
    title: r.title,
  });
  return {
    slug: p.slug,
    name: p.name,
    newIssues: { count: Number(newCount?.n ?? 0), top: newTop.map(issue) },
    regressions: { count: regressed.length, top: regressed.slice(0, TOP).map(issue) },
    busiest: busiest.map((r) => ({ ...issue(r), events: Number(r.events) })),
    releases: releases.map((r) => ({ version: r.release, sessions: Number(r.sessions), crashed: Number(r.crashed) })),
  };
}

/**
 * Claims the (member, organization, week) send: true for exactly one caller, ever. The claim is
 * written before the mail is sent, so a restart never sends a week twice; a failed send releases it.
 */
export async function claimSummarySend(tx: Tx, row: { userId: string; orgId: number; weekStart: number }, now: number): Promise<boolean> {
  const r = await tx
    .insertInto("weekly_summary_sends")
    .values({ user_id: row.userId, org_id: row.orgId, week_start: row.weekStart, sent_at: now })
    .onConflict((oc) => oc.columns(["user_id", "org_id", "week_start"]).doNothing())
    .returning("user_id")
    .executeTakeFirst();
  return r !== undefined;
}

export async function releaseSummarySend(tx: Tx, row: { userId: string; orgId: number; weekStart: number }): Promise<void> {
  await tx
    .deleteFrom("weekly_summary_sends")
    .where("user_id", "=", row.userId)
    .where("org_id", "=", row.orgId)
    .where("week_start", "=", row.weekStart)
    .execute();
}

export async function summaryOptedOut(db: Db, userId: string): Promise<boolean> {
  const r = await db.kysely.selectFrom("weekly_summary_optouts").select("user_id").where("user_id", "=", userId).executeTakeFirst();
  return r !== undefined;
}

export async function setSummaryOptOut(tx: Tx, userId: string, optOut: boolean, now: number): Promise<void> {
  if (!optOut) {
    await tx.deleteFrom("weekly_summary_optouts").where("user_id", "=", userId).execute();
    return;
  }
  await tx
    .insertInto("weekly_summary_optouts")
    .values({ user_id: userId, created_at: now })
    .onConflict((oc) => oc.column("user_id").doNothing())
    .execute();
}
