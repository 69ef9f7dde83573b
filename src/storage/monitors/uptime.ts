/**
 * Uptime monitors and their check results (migration 0014). The checker claims a due monitor by
 * moving its `next_check_at` with a compare-and-set, so two workers never check it twice for one slot.
 */
import type { UptimeConfig, UptimeState } from "../../core/monitors/uptime";
import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface UptimeMonitorRecord {
  id: number;
  projectId: number;
  name: string;
  config: UptimeConfig;
  paused: boolean;
  state: UptimeState;
  failures: number;
  successes: number;
  nextCheckAt: number;
  issueId: number | null;
  createdAt: number;
}

export interface UptimeResultRecord {
  checkedAt: number;
  up: boolean;
  status: number | null;
  latencyMs: number | null;
  error: string | null;
}

type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c) as Tx;
const cols = [
  "id",
  "project_id",
  "name",
  "config",
  "paused",
  "state",
  "failures",
  "successes",
  "next_check_at",
  "issue_id",
  "created_at",
] as const;

interface Row {
  id: number;
  project_id: number;
  name: string;
  config: string;
  paused: number;
  state: string;
  failures: number;
  successes: number;
  next_check_at: number;
  issue_id: number | null;
  created_at: number;
}

function toRecord(r: Row): UptimeMonitorRecord {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    name: r.name,
    config: JSON.parse(r.config) as UptimeConfig,
    paused: Number(r.paused) === 1,
    state: r.state as UptimeState,
    failures: Number(r.failures),
    successes: Number(r.successes),
    nextCheckAt: Number(r.next_check_at),
    issueId: r.issue_id === null ? null : Number(r.issue_id),
    createdAt: Number(r.created_at),
  };
}

export async function insertUptimeMonitor(
  c: Conn,
  m: { projectId: number; name: string; config: UptimeConfig },
  now: number,
): Promise<UptimeMonitorRecord> {
  const row = await k(c)
    .insertInto("uptime_monitors")
    .values({
      project_id: m.projectId,
      name: m.name,
      config: JSON.stringify(m.config),
      paused: 0,
      state: "pending",
      next_check_at: now,
      created_at: now,
    })
    .returning(cols)
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

export async function listUptimeMonitors(c: Conn, projectIds: number[]): Promise<UptimeMonitorRecord[]> {
  if (projectIds.length === 0) return [];
  const rows = await k(c)
    .selectFrom("uptime_monitors")
    .select(cols)
    .where("project_id", "in", projectIds)
    .orderBy("name")
    .orderBy("id")
    .execute();
  return rows.map(toRecord);
}

export async function getUptimeMonitor(c: Conn, id: number): Promise<UptimeMonitorRecord | undefined> {
  const r = await k(c).selectFrom("uptime_monitors").select(cols).where("id", "=", id).executeTakeFirst();
  return r ? toRecord(r) : undefined;
}

export async function listDueUptimeMonitors(c: Conn, now: number, limit: number): Promise<UptimeMonitorRecord[]> {
  const rows = await k(c)
    .selectFrom("uptime_monitors")
    .select(cols)
    .where("paused", "=", 0)
    .where("next_check_at", "<=", now)
    .orderBy("next_check_at")
    .limit(limit)
    .execute();
  return rows.map(toRecord);
}

/** Claims a due check: moves next_check_at from `expected` to `next`; false when another worker did. */
export async function claimUptimeCheck(c: Conn, id: number, expected: number, next: number): Promise<boolean> {
  const res = await k(c)
    .updateTable("uptime_monitors")
    .set({ next_check_at: next })
    .where("id", "=", id)
    .where("next_check_at", "=", expected)
    .executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0) > 0;
}

export async function recordUptimeResult(
  tx: Tx,
  id: number,
  r: UptimeResultRecord,
  s: { state: UptimeState; failures: number; successes: number; issueId: number | null },
): Promise<void> {
  await tx
    .insertInto("uptime_results")
    .values({ monitor_id: id, checked_at: r.checkedAt, up: r.up ? 1 : 0, status: r.status, latency_ms: r.latencyMs, error: r.error })
    .execute();
  await tx
    .updateTable("uptime_monitors")
    .set({ state: s.state, failures: s.failures, successes: s.successes, issue_id: s.issueId })
    .where("id", "=", id)
    .execute();
}

export async function listUptimeResults(c: Conn, id: number, since: number, limit = 1000): Promise<UptimeResultRecord[]> {
  const rows = await k(c)
    .selectFrom("uptime_results")
    .select(["checked_at", "up", "status", "latency_ms", "error"])
    .where("monitor_id", "=", id)
    .where("checked_at", ">=", since)
    .orderBy("checked_at", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    checkedAt: Number(r.checked_at),
    up: Number(r.up) === 1,
    status: r.status === null ? null : Number(r.status),
    latencyMs: r.latency_ms === null ? null : Number(r.latency_ms),
    error: r.error,
  }));
}

/** Deletes up to `limit` of a monitor's check results older than `cutoff` (retention); returns how many. */
export async function deleteUptimeResultsBefore(tx: Tx, monitorId: number, cutoff: number, limit: number): Promise<number> {
  const ids = tx
    .selectFrom("uptime_results")
    .select("id")
    .where("monitor_id", "=", monitorId)
    .where("checked_at", "<", cutoff)
    .limit(limit);
  const res = await tx.deleteFrom("uptime_results").where("id", "in", ids).executeTakeFirst();
  return Number(res.numDeletedRows);
}
