/**
 * Issue statistics (migration 0007): events per issue and hour, and per issue and tag value; plus
 * (0042) events per issue and UTC day, rolled up from the hourly rows of the same write.
 * Written by the digest batch — aggregated in memory for the whole batch, then one multi-row
 * upsert per table — and read by the stream (sparklines, tag search), the issue page (trend,
 * distribution bars), Sentry's issue lists (`stats`) and the search bar (autocompletion).
 */
import { sql } from "kysely";
import type { Db } from "../db";
import { chunks, type Tx } from "../dialect";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 400;

// PostgreSQL rejects NUL in text columns; SDK strings occasionally carry one.
const clean = (s: string): string => (s.includes("\u0000") ? s.replaceAll("\u0000", "") : s);

/** The batch's counts, keyed so that each (issue, hour) and (issue, key, value) is written once. */
export class IssueStatsBatch {
  readonly hourly = new Map<string, { issueId: number; hour: number; count: number }>();
  readonly values = new Map<string, { issueId: number; projectId: number; key: string; value: string; count: number; lastSeen: number }>();
  readonly keys = new Map<string, { issueId: number; projectId: number; key: string; count: number }>();

  /** Counts one stored event of `issueId` received at `at` (epoch ms) with these tags. */
  add(issueId: number, projectId: number, at: number, tags: Array<[string, string]>): void {
    const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
    const h = this.hourly.get(`${issueId}:${hour}`);
    if (h) h.count += 1;
    else this.hourly.set(`${issueId}:${hour}`, { issueId, hour, count: 1 });
    for (const [rawKey, rawValue] of tags) {
      const key = clean(rawKey);
      const value = clean(rawValue);
      const vk = `${issueId}\u0001${key}\u0001${value}`;
      const v = this.values.get(vk);
      if (v) {
        v.count += 1;
        v.lastSeen = Math.max(v.lastSeen, at);
      } else this.values.set(vk, { issueId, projectId, key, value, count: 1, lastSeen: at });
      const kk = `${issueId}\u0001${key}`;
      const k = this.keys.get(kk);
      if (k) k.count += 1;
      else this.keys.set(kk, { issueId, projectId, key, count: 1 });
    }
  }

  get empty(): boolean {
    return this.hourly.size === 0;
  }
}

/**
 * The day rows (`issue_daily`, 0042) that sum these hour rows: the rollup every writer of hourly
 * counts adds with them — the digest, merges, unmerges (negative counts) and the UI bench's seed.
 */
export function dailyRollup(
  hourly: Iterable<{ issueId: number; hour: number; count: number }>,
): Array<{ issueId: number; day: number; count: number }> {
  const days = new Map<string, { issueId: number; day: number; count: number }>();
  for (const h of hourly) {
    const day = Math.floor(h.hour / DAY_MS) * DAY_MS;
    const d = days.get(`${h.issueId}:${day}`);
    if (d) d.count += h.count;
    else days.set(`${h.issueId}:${day}`, { issueId: h.issueId, day, count: h.count });
  }
  return [...days.values()].sort((a, b) => a.issueId - b.issueId || a.day - b.day);
}

/**
 * Adds the batch's counts (inside the digest transaction). Rows are sorted by key so concurrent
 * workers on PostgreSQL lock them in the same order (no deadlocks).
 */
export async function writeIssueStats(tx: Tx, batch: IssueStatsBatch): Promise<void> {
  if (batch.empty) return;
  const hourly = [...batch.hourly.values()].sort((a, b) => a.issueId - b.issueId || a.hour - b.hour);
  for (const rows of chunks(hourly, CHUNK)) {
    await tx
      .insertInto("issue_hourly")
      .values(rows.map((r) => ({ issue_id: r.issueId, hour: r.hour, count: r.count })))
      .onConflict((oc) =>
        oc.columns(["issue_id", "hour"]).doUpdateSet((eb) => ({ count: eb("issue_hourly.count", "+", eb.ref("excluded.count")) })),
      )
      .execute();
  }
  for (const rows of chunks(dailyRollup(hourly), CHUNK)) {
    await tx
      .insertInto("issue_daily")
      .values(rows.map((r) => ({ issue_id: r.issueId, day: r.day, count: r.count })))
      .onConflict((oc) =>
        oc.columns(["issue_id", "day"]).doUpdateSet((eb) => ({ count: eb("issue_daily.count", "+", eb.ref("excluded.count")) })),
      )
      .execute();
  }
  const byKey = (a: { issueId: number; key: string }, b: { issueId: number; key: string }) =>
    a.issueId - b.issueId || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const values = [...batch.values.values()].sort((a, b) => byKey(a, b) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  for (const rows of chunks(values, CHUNK)) {
    await tx
      .insertInto("issue_tag_values")
      .values(
        rows.map((r) => ({
          issue_id: r.issueId,
          key: r.key,
          value: r.value,
          project_id: r.projectId,
          count: r.count,
          last_seen: r.lastSeen,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["issue_id", "key", "value"]).doUpdateSet((eb) => ({
          count: eb("issue_tag_values.count", "+", eb.ref("excluded.count")),
          last_seen: sql<number>`case when excluded.last_seen > issue_tag_values.last_seen then excluded.last_seen else issue_tag_values.last_seen end`,
        })),
      )
      .execute();
  }
  const keys = [...batch.keys.values()].sort(byKey);
  for (const rows of chunks(keys, CHUNK)) {
    await tx
      .insertInto("issue_tag_keys")
      .values(rows.map((r) => ({ issue_id: r.issueId, key: r.key, project_id: r.projectId, count: r.count })))
      .onConflict((oc) =>
        oc.columns(["issue_id", "key"]).doUpdateSet((eb) => ({ count: eb("issue_tag_keys.count", "+", eb.ref("excluded.count")) })),
      )
      .execute();
  }
}

/**
 * Merged issues: their counts join the survivor's. Deleted issues: their counts go. (Called by
 * the lifecycle code when it merges or deletes; stats of a missing issue are otherwise inert.)
 */
export async function moveIssueStats(tx: Tx, fromIssueIds: number[], toIssueId: number): Promise<void> {
  if (fromIssueIds.length === 0) return;
  const all = [toIssueId, ...fromIssueIds];
  const hourly = await tx
    .selectFrom("issue_hourly")
    .select(["hour", (eb) => eb.fn.sum<number>("count").as("n")])
    .where("issue_id", "in", all)
    .groupBy("hour")
    .execute();
  const values = await tx
    .selectFrom("issue_tag_values")
    .select([
      "key",
      "value",
      (eb) => eb.fn.min<number>("project_id").as("project_id"),
      (eb) => eb.fn.sum<number>("count").as("n"),
      (eb) => eb.fn.max<number>("last_seen").as("last"),
    ])
    .where("issue_id", "in", all)
    .groupBy(["key", "value"])
    .execute();
  await deleteIssueStats(tx, all);
  const batch = new IssueStatsBatch();
  for (const h of hourly) batch.hourly.set(String(h.hour), { issueId: toIssueId, hour: Number(h.hour), count: Number(h.n) });
  for (const v of values) {
    batch.values.set(`${v.key}\u0001${v.value}`, {
      issueId: toIssueId,
      projectId: Number(v.project_id),
      key: v.key,
      value: v.value,
      count: Number(v.n),
      lastSeen: Number(v.last),
    });
    const k = batch.keys.get(v.key);
    if (k) k.count += Number(v.n);
    else batch.keys.set(v.key, { issueId: toIssueId, projectId: Number(v.project_id), key: v.key, count: Number(v.n) });
  }
  await writeIssueStats(tx, batch);
}

export async function deleteIssueStats(tx: Tx, issueIds: number[]): Promise<void> {
  if (issueIds.length === 0) return;
  await tx.deleteFrom("issue_hourly").where("issue_id", "in", issueIds).execute();
  await tx.deleteFrom("issue_daily").where("issue_id", "in", issueIds).execute();
  await tx.deleteFrom("issue_tag_values").where("issue_id", "in", issueIds).execute();
  await tx.deleteFrom("issue_tag_keys").where("issue_id", "in", issueIds).execute();
}

// ---------------------------------------------------------------------------------------------
// Reads

/** A series of `buckets` consecutive buckets of `bucketMs` starting at `from` (an hour boundary). */
export interface SeriesSpec {
  from: number;
  bucketMs: number;
  buckets: number;
}

/**
 * Event counts of these issues in `buckets` consecutive buckets of `bucketMs` starting at `from`
 * (an hour boundary): sparklines (24 × 1 h, 14 × 1 day) and the trend chart. One query.
 */
export async function bucketCounts(
  db: Db,
  issueIds: number[],
  from: number,
  bucketMs: number,
  buckets: number,
): Promise<Map<number, number[]>> {
  const [out] = await bucketSeries(db, issueIds, [{ from, bucketMs, buckets }]);
  return out as Map<number, number[]>;
}

/**
 * Several series of these issues in ONE query (Sentry's lists want 24 h and 14 d of up to 100
 * issues): one result map per spec. A series of whole UTC days reads `issue_daily` (≤ 1 row per
 * bucket), any other `issue_hourly`; buckets of the table's own size are read without grouping.
 * Each issue's series comes back as one `bucket:count,…` string: materializing thousands of small
 * rows cost more than the index reads (≈ 1 ms per 1,000 rows on SQLite, issue 28).
 */
export async function bucketSeries(db: Db, issueIds: number[], specs: SeriesSpec[]): Promise<Array<Map<number, number[]>>> {
  const outs = specs.map((s) => new Map(issueIds.map((id) => [id, new Array<number>(s.buckets).fill(0)])));
  if (issueIds.length === 0 || specs.length === 0) return outs;
  const ids = sql.join(issueIds);
  const pairs = sql`b || ':' || n`;
  const agg = db.dialect === "postgres" ? sql`string_agg(${pairs}, ',')` : sql`group_concat(${pairs})`;
  const parts = specs.map((s, n) => {
    if (!Number.isSafeInteger(s.from) || !Number.isSafeInteger(s.bucketMs) || !Number.isSafeInteger(s.buckets))
      throw new Error("bucketSeries: integer times expected");
    const daily = s.from % DAY_MS === 0 && s.bucketMs % DAY_MS === 0;
    const table = sql.table(daily ? "issue_daily" : "issue_hourly");
    const t = sql.ref(daily ? "day" : "hour");
    // Literals, not parameters: PostgreSQL matches the GROUP BY expression to the selected one textually.
    const bucket = sql`(${t} - ${sql.lit(s.from)}) / ${sql.lit(s.bucketMs)}`;
    const where = sql`issue_id in (${ids}) and ${t} >= ${sql.lit(s.from)} and ${t} < ${sql.lit(s.from + s.bucketMs * s.buckets)}`;
    const rows =
      s.bucketMs === (daily ? DAY_MS : HOUR_MS)
        ? sql`select issue_id, ${bucket} as b, count as n from ${table} where ${where}`
        : sql`select issue_id, ${bucket} as b, sum(count) as n from ${table} where ${where} group by issue_id, ${bucket}`;
    return sql`select issue_id, ${sql.lit(n)} as s, ${agg} as v from (${rows}) as r group by issue_id`;
  });
  const { rows } = await sql<{ issue_id: number; s: number; v: string }>`${sql.join(parts, sql` union all `)}`.execute(db.kysely);
  for (const r of rows) {
    const series = outs[Number(r.s)]?.get(Number(r.issue_id));
    if (!series) continue;
    for (const pair of r.v.split(",")) {
      const colon = pair.indexOf(":");
      const b = Number(pair.slice(0, colon));
      if (b >= 0 && b < series.length) series[b] = (series[b] ?? 0) + Number(pair.slice(colon + 1));
    }
  }
  return outs;
}

export interface TagDistribution {
  key: string;
  /** events of the issue that carried the key */
  total: number;
  /** most frequent values first */
  top: Array<{ value: string; count: number }>;
}

/** An issue's tag keys (most carried first) with their top values: the distribution bars. */
export async function tagDistribution(db: Db, issueId: number, opts: { keys?: number; values?: number } = {}): Promise<TagDistribution[]> {
  const keys = await db.kysely
    .selectFrom("issue_tag_keys")
    .select(["key", "count"])
    .where("issue_id", "=", issueId)
    .orderBy("count", "desc")
    .orderBy("key")
    .limit(opts.keys ?? 24)
    .execute();
  const perKey = opts.values ?? 5;
  return Promise.all(
    keys.map(async (k) => {
      const top = await db.kysely
        .selectFrom("issue_tag_values")
        .select(["value", "count"])
        .where("issue_id", "=", issueId)
        .where("key", "=", k.key)
        .orderBy("count", "desc")
        .orderBy("value")
        .limit(perKey)
        .execute();
      return { key: k.key, total: Number(k.count), top: top.map((t) => ({ value: t.value, count: Number(t.count) })) };
    }),
  );
}

/** Which of these issues carry the tag key at all (e.g. `digest` for the "has digest" badge). */
export async function issuesWithTagKey(db: Db, issueIds: number[], key: string): Promise<Set<number>> {
  if (issueIds.length === 0) return new Set();
  const rows = await db.kysely
    .selectFrom("issue_tag_keys")
    .select("issue_id")
    .where("issue_id", "in", issueIds)
    .where("key", "=", key)
    .execute();
  return new Set(rows.map((r) => Number(r.issue_id)));
}

/** Values of a tag in these projects starting with `prefix`, most frequent first (autocompletion). */
export async function tagValueSuggestions(
  db: Db,
  q: { projectIds: number[]; key: string; prefix: string; limit: number },
): Promise<Array<{ value: string; count: number }>> {
  if (q.projectIds.length === 0) return [];
  let inner = db.kysely
    .selectFrom("issue_tag_values")
    .select(["value", "count"])
    .where("project_id", "in", q.projectIds)
    .where("key", "=", q.key);
  // A range on the index instead of LIKE (which cannot use it in SQLite, being case-insensitive).
  if (q.prefix) inner = inner.where("value", ">=", q.prefix).where("value", "<", `${q.prefix}\uffff`);
  // A high-cardinality key (user.email) is sampled rather than aggregated whole.
  const rows = await db.kysely
    .selectFrom(inner.limit(5000).as("v"))
    .select(["v.value", (eb) => eb.fn.sum<number>("v.count").as("n")])
    .groupBy("v.value")
    .orderBy("n", "desc")
    .orderBy("v.value")
    .limit(q.limit)
    .execute();
  return rows.map((r) => ({ value: r.value, count: Number(r.n) }));
}

/** The tag keys used in these projects, most used first (autocompletion). */
export async function tagKeySuggestions(db: Db, projectIds: number[], limit = 100): Promise<string[]> {
  if (projectIds.length === 0) return [];
  const rows = await db.kysely
    .selectFrom(db.kysely.selectFrom("issue_tag_keys").select(["key", "count"]).where("project_id", "in", projectIds).limit(50_000).as("k"))
    .select(["k.key", (eb) => eb.fn.sum<number>("k.count").as("n")])
    .groupBy("k.key")
    .orderBy("n", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => r.key);
}

/** Which of `keys` some issue of these projects has as a tag (index on (project_id, key)). */
export async function existingTagKeys(db: Db, projectIds: number[], keys: string[]): Promise<Set<string>> {
  if (projectIds.length === 0 || keys.length === 0) return new Set();
  const rows = await db.kysely
    .selectFrom("issue_tag_keys")
    .select("key")
    .distinct()
    .where("project_id", "in", projectIds)
    .where("key", "in", keys.slice(0, 50))
    .execute();
  return new Set(rows.map((r) => r.key));
}

/**
 * The tag keys of these projects with how many distinct values each has (Sentry's org tag list,
 * `totalValues`), most values first. Reads at most `scan` (issue, key, value) rows: on a large
 * installation the counts are of the rows read.
 */
export async function tagKeysWithValueCounts(
  db: Db,
  projectIds: number[],
  opts: { limit?: number; scan?: number } = {},
): Promise<Array<{ key: string; values: number }>> {
  if (projectIds.length === 0) return [];
  const inner = db.kysely
    .selectFrom("issue_tag_values")
    .select(["key", "value"])
    .where("project_id", "in", projectIds)
    .limit(opts.scan ?? 100_000);
  const rows = await db.kysely
    .selectFrom(inner.as("v"))
    .select(["v.key", (eb) => eb.fn.count<number | string>("v.value").distinct().as("n")])
    .groupBy("v.key")
    .orderBy("n", "desc")
    .orderBy("v.key")
    .limit(opts.limit ?? 1000)
    .execute();
  return rows.map((r) => ({ key: r.key, values: Number(r.n) }));
}
