/**
 * The replay list query: the compiled search (core/replays/replay-query.ts) over the replays of
 * the projects the caller may see, in a time window, sorted and paged by offset. One Kysely query
 * for both dialects; `*` wildcards become LIKE patterns (escaped otherwise).
 */
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { CompareOp, ReplayFilter, ReplaySearch, ReplaySort } from "../../core/replays/replay-query";
import type { Db } from "../db";
import type { Database } from "../schema";
import type { ReplayRow } from "./replays";

export interface ReplayListQuery {
  projectIds: number[];
  search: ReplaySearch;
  /** replays active in this window (started before its end, finished after its start) */
  range: { start: number; end: number } | null;
  sort: ReplaySort;
  offset: number;
  limit: number;
}

type EB = ExpressionBuilder<Database, "replays">;

/** `*` → `%`, the rest escaped (backslash is the escape character in both dialects' LIKE … ESCAPE). */
export function likePattern(value: string, contains: boolean): string {
  const escaped = value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%");
  return contains && !value.includes("*") ? `%${escaped}%` : escaped;
}

function like(column: Expression<unknown>, pattern: string): Expression<SqlBool> {
  return sql<SqlBool>`${column} like ${pattern} escape '\\'`;
}

function textMatch(eb: EB, column: string, value: string): Expression<SqlBool> {
  const ref = eb.ref(`replays.${column}` as "replays.release");
  return value.includes("*") ? like(ref, likePattern(value, false)) : eb(ref, "=", value);
}

const OPS: Record<CompareOp, ">" | ">=" | "<" | "<=" | "="> = { gt: ">", gte: ">=", lt: "<", lte: "<=", eq: "=" };

function condition(eb: EB, f: ReplayFilter): Expression<SqlBool> {
  switch (f.kind) {
    case "text": {
      const any = eb.or(f.columns.flatMap((c) => f.values.map((v) => textMatch(eb, c, v))));
      return f.negated ? eb.not(any) : any;
    }
    case "number": {
      const left =
        f.column === "duration"
          ? sql<number>`(replays.finished_at - replays.started_at)`
          : eb.ref(`replays.${f.column}` as "replays.count_errors");
      const cmp = eb(left, OPS[f.op], f.value);
      return f.negated ? eb.not(cmp) : cmp;
    }
    case "url": {
      const any = eb.or(f.values.map((v) => like(eb.ref("replays.urls"), likePattern(v, true))));
      return f.negated ? eb.not(any) : any;
    }
    case "error": {
      const has = eb.exists(
        eb
          .selectFrom("replay_errors")
          .select(sql`1`.as("one"))
          .whereRef("replay_errors.replay_id", "=", "replays.replay_id")
          .where("replay_errors.event_id", "in", f.eventIds),
      );
      return f.negated ? eb.not(has) : has;
    }
    case "trace": {
      const any = eb.or(f.traceIds.map((id) => like(eb.ref("replays.trace_ids"), `%"${id}"%`)));
      return f.negated ? eb.not(any) : any;
    }
    case "tag": {
      const key = f.key.replace(/[\n=]/g, " ");
      const any = eb.or(
        f.values.map((v) => like(eb.ref("replays.tags"), `%\n${likePattern(key, false)}=${likePattern(v.replace(/\n/g, " "), false)}\n%`)),
      );
      return f.negated ? eb.not(any) : any;
    }
    case "free": {
      const text = f.text.toLowerCase().replace(/-/g, "");
      const pattern = likePattern(f.text, true);
      const parts: Expression<SqlBool>[] = [
        like(eb.ref("replays.urls"), pattern),
        like(eb.ref("replays.user_email"), pattern),
        like(eb.ref("replays.user_id"), pattern),
        like(eb.ref("replays.user_username"), pattern),
      ];
      if (/^[0-9a-f]{4,32}$/.test(text)) parts.push(like(eb.ref("replays.replay_id"), `${text}%`));
      return eb.or(parts);
    }
  }
}

function sortExpression(sort: ReplaySort) {
  return sort.column === "duration" ? sql`(replays.finished_at - replays.started_at)` : sql.ref(`replays.${sort.column}`);
}

/** One page of replays (limit + 1 read: the caller tells whether there is a next page). */
export async function searchReplays(db: Db, q: ReplayListQuery): Promise<ReplayRow[]> {
  if (q.projectIds.length === 0) return [];
  let query = db.kysely.selectFrom("replays").selectAll("replays").where("replays.project_id", "in", q.projectIds);
  if (q.range) {
    const { start, end } = q.range;
    query = query.where("replays.started_at", "<=", end).where("replays.finished_at", ">=", start);
  }
  for (const f of q.search.filters) query = query.where((eb) => condition(eb, f));
  const dir = q.sort.desc ? sql`desc` : sql`asc`;
  const rows = await query
    .orderBy(sql`${sortExpression(q.sort)} ${dir}`)
    .orderBy("replays.id", q.sort.desc ? "desc" : "asc")
    .offset(q.offset)
    .limit(q.limit + 1)
    .execute();
  return rows as ReplayRow[];
}

/** The replays of `replayIds` in these projects (replay-count, the issue page). */
export async function replaysByIds(db: Db, projectIds: number[], replayIds: readonly string[]): Promise<ReplayRow[]> {
  if (projectIds.length === 0 || replayIds.length === 0) return [];
  return (await db.kysely
    .selectFrom("replays")
    .selectAll()
    .where("project_id", "in", projectIds)
    .where("replay_id", "in", [...replayIds])
    .execute()) as ReplayRow[];
}

/**
 * Stored replays of a trace in these projects: those its errors and logs name, and those whose
 * SDK recorded the trace id (a replay lists the traces it took part in). At most `limit`, newest first.
 */
export async function replayIdsOfTrace(
  db: Db,
  projectIds: number[],
  traceId: string,
  named: readonly string[],
  limit = 20,
): Promise<string[]> {
  if (projectIds.length === 0 || !/^[0-9a-f]{32}$/.test(traceId)) return [];
  const rows = await db.kysely
    .selectFrom("replays")
    .select("replay_id")
    .where("project_id", "in", projectIds)
    .where((eb) => {
      const inTrace = like(eb.ref("replays.trace_ids"), `%"${traceId}"%`);
      return named.length > 0 ? eb.or([eb("replay_id", "in", [...named]), inTrace]) : inTrace;
    })
    .orderBy("started_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => r.replay_id);
}

/** Replay ids per issue (linked error events), for replays in these projects. */
export async function replayIdsByIssue(
  db: Db,
  projectIds: number[],
  issueIds: readonly number[],
  range: { start: number; end: number } | null,
): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (projectIds.length === 0 || issueIds.length === 0) return out;
  let q = db.kysely
    .selectFrom("replay_errors")
    .innerJoin("replays", "replays.replay_id", "replay_errors.replay_id")
    .select(["replay_errors.issue_id", "replay_errors.replay_id"])
    .where("replay_errors.issue_id", "in", [...issueIds])
    .where("replays.project_id", "in", projectIds);
  if (range) q = q.where("replays.finished_at", ">=", range.start).where("replays.started_at", "<=", range.end);
  for (const r of await q.orderBy("replays.started_at", "desc").execute()) {
    const issueId = Number(r.issue_id);
    const list = out.get(issueId) ?? [];
    if (!list.includes(r.replay_id)) list.push(r.replay_id);
    out.set(issueId, list);
  }
  return out;
}

export interface ReplayErrorLink {
  eventId: string;
  projectId: number;
  issueId: number | null;
  /** the issue's short id number (formatted with the project slug by the caller) */
  shortId: number | null;
  title: string | null;
  level: string | null;
  timestamp: number | null;
}

/**
 * The error events a replay saw, oldest first, with their issues: linked by the digest (the event
 * carried the replay's id), or only named by the replay (`error_ids`) and found among the events.
 */
export async function replayErrorLinks(db: Db, replayId: string): Promise<ReplayErrorLink[]> {
  const rows = await db.kysely
    .selectFrom("replay_errors as re")
    .leftJoin("events as e", (j) => j.onRef("e.project_id", "=", "re.project_id").onRef("e.event_id", "=", "re.event_id"))
    .leftJoin("issues as i", (j) => j.on((eb) => eb("i.id", "=", eb.fn.coalesce("re.issue_id", "e.issue_id"))))
    .select([
      "re.event_id",
      "re.project_id",
      "i.id as issue_id",
      "i.short_id",
      "i.title",
      "i.level",
      "re.timestamp",
      "e.timestamp as event_ts",
    ])
    .where("re.replay_id", "=", replayId)
    .limit(1000)
    .execute();
  return rows
    .map((r) => ({
      eventId: r.event_id,
      projectId: Number(r.project_id),
      issueId: r.issue_id === null ? null : Number(r.issue_id),
      shortId: r.short_id === null ? null : Number(r.short_id),
      title: r.title ?? null,
      level: r.level ?? null,
      timestamp: r.timestamp !== null ? Number(r.timestamp) : r.event_ts !== null ? Number(r.event_ts) : null,
    }))
    .sort((a, b) => (a.timestamp ?? Number.MAX_SAFE_INTEGER) - (b.timestamp ?? Number.MAX_SAFE_INTEGER));
}

/** The replay each of these error events was captured in (replay id and the error's time), where linked. */
export async function replaysOfEvents(
  db: Db,
  projectIds: number[],
  eventIds: readonly string[],
): Promise<Map<string, { replayId: string; timestamp: number | null }>> {
  const out = new Map<string, { replayId: string; timestamp: number | null }>();
  if (projectIds.length === 0 || eventIds.length === 0) return out;
  const rows = await db.kysely
    .selectFrom("replay_errors")
    .innerJoin("replays", "replays.replay_id", "replay_errors.replay_id")
    .select(["replay_errors.event_id", "replay_errors.replay_id", "replay_errors.timestamp"])
    .where("replay_errors.event_id", "in", [...eventIds])
    .where("replays.project_id", "in", projectIds)
    .execute();
  for (const r of rows) out.set(r.event_id, { replayId: r.replay_id, timestamp: r.timestamp === null ? null : Number(r.timestamp) });
  return out;
}
