/**
 * The issue stream's query: the SPEC §2 search conditions (compiled in src/core/search) as SQL
 * over `issues` and the 0007 statistics, four sorts, keyset pagination on (sort value, id).
 * One query per page; sparklines and badges are read for the page's ids afterwards.
 */
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { parseAssignee } from "../../core/assignee";
import type { SearchCondition } from "../../core/search/parse-query";
import type { Db } from "../db";
import type { Database } from "../schema";
import { type IssueRow, issueColumns, toIssue } from "./issues";

export type IssueSort = "date" | "new" | "freq" | "user";

export const SORT_COLUMNS = { date: "last_seen", new: "first_seen", freq: "event_count", user: "user_count" } as const;

/** Conditions as storage takes them: `assigned:` already resolved to user ids (null = unassigned), projects folded into projectIds. */
export type StorageCondition =
  | Exclude<SearchCondition, { kind: "assigned" } | { kind: "project" }>
  | { kind: "assigned"; userIds: Array<string | null>; negated: boolean };

export interface IssueSearchQuery {
  projectIds: number[];
  conditions: StorageCondition[];
  sort: IssueSort;
  limit: number;
  /** the last row of the previous page: its sort value and id */
  cursor?: { value: number; id: number } | null;
  /** how tag terms are matched; chosen from the data when absent (tests force each and compare) */
  tagPlan?: TagPlan;
}

export interface SearchedIssue extends IssueRow {
  /** classification flags (`deploy-skew`) */
  flags: string[];
}

export interface IssueSearchPage {
  items: SearchedIssue[];
  nextCursor: { value: number; id: number } | null;
}

type EB = ExpressionBuilder<Database, "issues">;

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const SUBSTATUS: Record<string, string> = { regressed: "regressed", new: "new", ongoing: "ongoing" };

function statusExpr(eb: EB, values: string[]): Expression<SqlBool> {
  return eb.or(
    values.map((v) => {
      const sub = SUBSTATUS[v];
      return sub ? eb.and([eb("status", "=", "unresolved"), eb("substatus", "=", sub)]) : eb("status", "=", v);
    }),
  );
}

function tagValueExpr(eb: ExpressionBuilder<Database, "issue_tag_values">, values: string[]): Expression<SqlBool> {
  return eb.or(
    values.map((v) =>
      v.includes("*") ? eb("value", "like", sql<string>`${likeEscape(v).replaceAll("*", "%")} escape '\\'`) : eb("value", "=", v),
    ),
  );
}

/**
 * How tag terms (`key:value`, `has:key`) are matched. `collect`: the issues having the value, read
 * from the (project_id, key, value) index, then filtered and sorted — right when a term is rare.
 * `probe`: the sort's index is walked and each issue's own tag rows are looked up by primary key,
 * stopping after a page — right when every term is common (`browser:"Firefox 125"` holds ~40 % of
 * issues: collecting read and sorted 45,000 issues at 100,000, issue 43).
 */
export type TagPlan = "collect" | "probe";

/**
 * A correlated probe of the walked issue's rows. `limit 1 offset 0`: PostgreSQL would otherwise turn
 * the EXISTS into a semi-join and hash the value's whole issue list; with an OFFSET it keeps a
 * per-row subplan (SQLite does so anyway). No project_id term: an issue's tag rows carry its own
 * project (merges stay within a project), the walk is already within `projectIds`, and the probe
 * stays inside the primary key (PostgreSQL: an index-only scan, no heap visit per probe).
 */
function probe(eb: EB, sub: Parameters<EB["exists"]>[0], negated: boolean): Expression<SqlBool> {
  return negated ? eb.not(eb.exists(sub)) : eb.exists(sub);
}

function conditionExpr(eb: EB, c: StorageCondition, projectIds: number[], plan: TagPlan): Expression<SqlBool> {
  const not = (e: Expression<SqlBool>) => ("negated" in c && c.negated ? eb.not(e) : e);
  switch (c.kind) {
    case "status":
      return not(statusExpr(eb, c.values));
    case "level":
      return not(eb("level", "in", c.values));
    case "type":
      return not(eb("type", "in", c.values));
    case "assigned":
      // coalesce: NOT must hold for unassigned issues too (NULL would drop them).
      return not(
        eb.or(
          c.userIds.map((id) => {
            if (id === null) return eb.and([eb("assignee_user_id", "is", null), eb("assignee_team_id", "is", null)]);
            const target = parseAssignee(id);
            if (target?.kind === "team") return eb(eb.fn.coalesce("assignee_team_id", sql.lit(0)), "=", target.teamId);
            return eb(eb.fn.coalesce("assignee_user_id", sql.lit("")), "=", id);
          }),
        ),
      );
    case "tag": {
      if (plan === "probe")
        return probe(
          eb,
          eb
            .selectFrom("issue_tag_values as t")
            .select(sql.lit(1).as("one"))
            .whereRef("t.issue_id", "=", "issues.id")
            .where("t.key", "=", c.key)
            .where((t) => tagValueExpr(t as unknown as ExpressionBuilder<Database, "issue_tag_values">, c.values))
            .limit(1)
            .offset(0),
          c.negated,
        );
      const sub = eb
        .selectFrom("issue_tag_values")
        .select("issue_tag_values.issue_id")
        .where("issue_tag_values.project_id", "in", projectIds)
        .where("issue_tag_values.key", "=", c.key)
        .where((t) => tagValueExpr(t, c.values));
      return c.negated ? eb("id", "not in", sub) : eb("id", "in", sub);
    }
    case "has": {
      if (c.key === "user") return c.negated ? eb("user_count", "=", 0) : eb("user_count", ">", 0);
      if (plan === "probe")
        return probe(
          eb,
          eb
            .selectFrom("issue_tag_keys as k")
            .select(sql.lit(1).as("one"))
            .whereRef("k.issue_id", "=", "issues.id")
            .where("k.key", "=", c.key)
            .limit(1)
            .offset(0),
          c.negated,
        );
      const sub = eb
        .selectFrom("issue_tag_keys")
        .select("issue_tag_keys.issue_id")
        .where("issue_tag_keys.project_id", "in", projectIds)
        .where("issue_tag_keys.key", "=", c.key);
      return c.negated ? eb("id", "not in", sub) : eb("id", "in", sub);
    }
    case "digest": {
      // Uses the (project_id, digest) index on events.
      const sub = eb
        .selectFrom("events")
        .select("events.issue_id")
        .where("events.project_id", "in", projectIds)
        .where("events.digest", "in", c.values);
      return c.negated ? eb("id", "not in", sub) : eb("id", "in", sub);
    }
    case "time": {
      const col = c.field === "firstSeen" ? "first_seen" : "last_seen";
      return eb(col, c.op === "gte" ? ">=" : "<=", c.at);
    }
    case "count": {
      const op = { gt: ">", gte: ">=", lt: "<", lte: "<=", eq: "=" } as const;
      return not(eb("event_count", op[c.op], c.value));
    }
    case "text": {
      const pattern = `%${likeEscape(c.value.toLowerCase())}%`;
      return eb.or([
        eb(sql`lower(title)`, "like", sql`${pattern} escape '\\'`),
        eb(sql`lower(culprit)`, "like", sql`${pattern} escape '\\'`),
      ]);
    }
  }
}

function parseFlags(s: string | null): string[] {
  if (!s) return [];
  try {
    const v: unknown = JSON.parse(s);
    return Array.isArray(v) ? v.filter((f): f is string => typeof f === "string") : [];
  } catch {
    return [];
  }
}

/** A tag term with at least this many issues is common: walking the sort's index finds a page of its issues sooner than collecting them all. */
const COMMON_TERM_ISSUES = 2000;

/** Sorts with a (status, value, id) index (0007, 0055): walked in order under one status. */
const WALKED_UNDER_STATUS = new Set<IssueSort>(["date", "freq"]);

/**
 * `probe` when the sort can be walked in order (one project, or one status for the sorts above) and every positive tag term is common; else `collect`.
 * Counting a term's issues stops at the threshold (a bounded read of the covering index).
 */
async function tagPlan(db: Db, q: IssueSearchQuery): Promise<TagPlan> {
  type TagTerm = Extract<StorageCondition, { kind: "tag" | "has" }>;
  const tagTerms = q.conditions.filter((c): c is TagTerm => c.kind === "tag" || (c.kind === "has" && c.key !== "user"));
  if (tagTerms.length === 0) return "collect";
  const walksInOrder =
    q.projectIds.length === 1 ||
    (WALKED_UNDER_STATUS.has(q.sort) && q.conditions.some((c) => c.kind === "status" && !c.negated && c.values.length === 1));
  if (!walksInOrder) return "collect";
  for (const c of tagTerms) {
    if (c.negated) continue;
    const issues =
      c.kind === "tag"
        ? db.kysely
            .selectFrom("issue_tag_values")
            .select("issue_id")
            .where("project_id", "in", q.projectIds)
            .where("key", "=", c.key)
            .where((t) => tagValueExpr(t, c.values))
            .limit(COMMON_TERM_ISSUES)
        : db.kysely
            .selectFrom("issue_tag_keys")
            .select("issue_id")
            .where("project_id", "in", q.projectIds)
            .where("key", "=", c.key)
            .limit(COMMON_TERM_ISSUES);
    const row = await db.kysely
      .selectFrom(issues.as("m"))
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirst();
    if (Number(row?.n ?? 0) < COMMON_TERM_ISSUES) return "collect";
  }
  return "probe";
}

/** A page of the stream. */
export async function searchIssues(db: Db, q: IssueSearchQuery): Promise<IssueSearchPage> {
  if (q.projectIds.length === 0) return { items: [], nextCursor: null };
  const limit = Math.max(1, Math.min(q.limit, 500));
  const col = SORT_COLUMNS[q.sort];
  let query = db.kysely
    .selectFrom("issues")
    .select([...issueColumns, "flags"])
    .where("project_id", "in", q.projectIds);
  const plan = q.tagPlan ?? (await tagPlan(db, q));
  for (const c of q.conditions) query = query.where((eb) => conditionExpr(eb, c, q.projectIds, plan));
  const cursor = q.cursor;
  // A row-value comparison: both databases walk an index from it (an OR of two conditions may not).
  if (cursor) query = query.where(sql<SqlBool>`(${sql.ref(col)}, id) < (${cursor.value}, ${cursor.id})`);
  // One row more than asked tells whether another page exists.
  const rows = await query
    .orderBy(col, "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const items = rows.slice(0, limit).map((r) => ({ ...toIssue(r), flags: parseFlags(r.flags) }));
  const last = items[items.length - 1];
  const sortValue = (i: IssueRow) => ({ date: i.lastSeen, new: i.firstSeen, freq: i.eventCount, user: i.userCount })[q.sort];
  return { items, nextCursor: rows.length > limit && last ? { value: sortValue(last), id: last.id } : null };
}

/** How many issues of these projects saw an event after `since` (the live "N updated" pill). */
export async function countActiveSince(
  db: Db,
  projectIds: number[],
  since: number,
): Promise<{ updated: number; created: number; lastSeen: number }> {
  if (projectIds.length === 0) return { updated: 0, created: 0, lastSeen: since };
  const row = await db.kysely
    .selectFrom("issues")
    .select((eb) => [
      eb.fn.countAll<number>().as("updated"),
      eb.fn.sum<number>(sql`case when first_seen > ${since} then 1 else 0 end`).as("created"),
      eb.fn.max<number>("last_seen").as("last"),
    ])
    .where("project_id", "in", projectIds)
    .where("last_seen", ">", since)
    .executeTakeFirst();
  return { updated: Number(row?.updated ?? 0), created: Number(row?.created ?? 0), lastSeen: Number(row?.last ?? since) || since };
}

/** The newest activity in these projects (cheap: the last_seen index), for the live poller. */
export async function latestActivity(db: Db, projectIds: number[]): Promise<number> {
  if (projectIds.length === 0) return 0;
  const row = await db.kysely
    .selectFrom("issues")
    .select((eb) => eb.fn.max<number>("last_seen").as("last"))
    .where("project_id", "in", projectIds)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}
