/**
 * What "nothing stranded" means after triage during digest (issue 39): every stored event belongs
 * to an existing issue, and every issue's counters — event count, user count, hourly series,
 * daily rollup, tag counts — equal what its stored events say; no hash or statistics row points
 * at an issue that is gone. Returns the violations found (empty: all hold), in words a failing
 * test prints.
 */
import type { Kysely } from "kysely";
import type { Database } from "../../src/storage/schema";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Tally {
  events: number;
  users: Set<string>;
  hours: Map<number, number>;
  days: Map<number, number>;
}

const bump = (m: Map<number, number>, k: number, n = 1) => m.set(k, (m.get(k) ?? 0) + n);

function sameCounts(a: Map<number, number>, b: Map<number, number>): boolean {
  const keys = new Set([...a.keys(), ...b.keys()]);
  for (const k of keys) if ((a.get(k) ?? 0) !== (b.get(k) ?? 0)) return false;
  return true;
}

export async function issueInvariantViolations(k: Kysely<Database>, projectIds: number[]): Promise<string[]> {
  const out: string[] = [];
  const issues = await k.selectFrom("issues").select(["id", "event_count", "user_count"]).where("project_id", "in", projectIds).execute();
  const live = new Map(issues.map((i) => [Number(i.id), { count: Number(i.event_count), users: Number(i.user_count) }]));
  const stored = new Map<number, Tally>();
  const events = await k
    .selectFrom("events")
    .select(["issue_id", "received_at", "user_key"])
    .where("project_id", "in", projectIds)
    .execute();
  for (const e of events) {
    const id = Number(e.issue_id);
    let t = stored.get(id);
    if (!t) {
      t = { events: 0, users: new Set(), hours: new Map(), days: new Map() };
      stored.set(id, t);
    }
    t.events += 1;
    if (e.user_key !== null) t.users.add(e.user_key);
    const at = Number(e.received_at);
    bump(t.hours, Math.floor(at / HOUR) * HOUR);
    bump(t.days, Math.floor(at / DAY) * DAY);
  }
  for (const [id, t] of stored) if (!live.has(id)) out.push(`${t.events} events under issue ${id}, which does not exist`);

  const all = [...live.keys()];
  const rows = async <T>(q: (ids: number[]) => Promise<T[]>): Promise<T[]> => (all.length === 0 ? [] : q(all));
  const hourly = await rows((ids) =>
    k.selectFrom("issue_hourly").select(["issue_id", "hour", "count"]).where("issue_id", "in", ids).execute(),
  );
  const daily = await rows((ids) =>
    k.selectFrom("issue_daily").select(["issue_id", "day", "count"]).where("issue_id", "in", ids).execute(),
  );
  const userSets = await rows((ids) =>
    k
      .selectFrom("issue_users")
      .select(["issue_id", (eb) => eb.fn.countAll<number>().as("n")])
      .where("issue_id", "in", ids)
      .groupBy("issue_id")
      .execute(),
  );
  const levelKeys = await rows((ids) =>
    k.selectFrom("issue_tag_keys").select(["issue_id", "count"]).where("issue_id", "in", ids).where("key", "=", "level").execute(),
  );
  const levelValues = await rows((ids) =>
    k
      .selectFrom("issue_tag_values")
      .select(["issue_id", (eb) => eb.fn.sum<number>("count").as("n")])
      .where("issue_id", "in", ids)
      .where("key", "=", "level")
      .groupBy("issue_id")
      .execute(),
  );
  const byIssue = <T extends { issue_id: number | string }>(list: T[]) => {
    const m = new Map<number, T[]>();
    for (const r of list) m.set(Number(r.issue_id), [...(m.get(Number(r.issue_id)) ?? []), r]);
    return m;
  };
  const hourlyOf = byIssue(hourly);
  const dailyOf = byIssue(daily);
  const usersOf = new Map(userSets.map((r) => [Number(r.issue_id), Number(r.n)]));
  const levelKeyOf = new Map(levelKeys.map((r) => [Number(r.issue_id), Number(r.count)]));
  const levelValuesOf = new Map(levelValues.map((r) => [Number(r.issue_id), Number(r.n)]));

  for (const [id, issue] of live) {
    const t = stored.get(id) ?? { events: 0, users: new Set<string>(), hours: new Map(), days: new Map() };
    const say = (what: string, have: unknown, want: unknown) => out.push(`issue ${id}: ${what} ${have}, stored events say ${want}`);
    if (issue.count !== t.events) say("count", issue.count, t.events);
    if (issue.users !== t.users.size) say("user count", issue.users, t.users.size);
    if ((usersOf.get(id) ?? 0) !== t.users.size) say("user set size", usersOf.get(id) ?? 0, t.users.size);
    const hours = new Map((hourlyOf.get(id) ?? []).map((r) => [Number(r.hour), Number(r.count)]));
    if (!sameCounts(hours, t.hours)) say("hourly series", JSON.stringify([...hours]), JSON.stringify([...t.hours]));
    const days = new Map((dailyOf.get(id) ?? []).map((r) => [Number(r.day), Number(r.count)]));
    if (!sameCounts(days, t.days)) say("daily rollup", JSON.stringify([...days]), JSON.stringify([...t.days]));
    if ((levelKeyOf.get(id) ?? 0) !== t.events) say("level tag count", levelKeyOf.get(id) ?? 0, t.events);
    if ((levelValuesOf.get(id) ?? 0) !== t.events) say("level tag values", levelValuesOf.get(id) ?? 0, t.events);
  }

  // Rows that point at an issue that is gone (the whole database: a test database is its own).
  const missing = (table: "issue_hashes" | "issue_users" | "issue_hourly" | "issue_daily" | "issue_tag_keys" | "issue_tag_values") =>
    k
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom("issues").select("issues.id").whereRef("issues.id", "=", `${table}.issue_id`))),
      )
      .executeTakeFirst();
  for (const table of ["issue_hashes", "issue_users", "issue_hourly", "issue_daily", "issue_tag_keys", "issue_tag_values"] as const) {
    const n = Number((await missing(table))?.n ?? 0);
    if (n > 0) out.push(`${n} ${table} rows point at issues that do not exist`);
  }
  return out;
}
