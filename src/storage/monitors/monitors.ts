/**
 * Cron monitors, their per-environment state and their check-ins (migration 0014). Writes run in
 * the digest transaction (check-ins) or the evaluator's (missed, timeout); every state change that
 * must happen once is a compare-and-set, so two evaluators or a retried queue row change nothing
 * twice.
 */
import { sql } from "kysely";
import type { MonitorConfig } from "../../core/monitors/checkin";
import type { Db } from "../db";
import { isPostgres, type Tx } from "../dialect";

export interface MonitorRecord {
  id: number;
  projectId: number;
  slug: string;
  name: string;
  status: "active" | "paused";
  muted: boolean;
  config: MonitorConfig;
  createdAt: number;
  updatedAt: number;
}

export interface MonitorEnvRecord {
  id: number;
  monitorId: number;
  environment: string;
  status: string;
  lastCheckinAt: number | null;
  nextCheckinAt: number | null;
  nextCheckinLatest: number | null;
  failures: number;
  successes: number;
  issueId: number | null;
}

export interface CheckInRecord {
  id: number;
  monitorId: number;
  environmentId: number;
  environment: string;
  checkInId: string;
  status: string;
  durationMs: number | null;
  release: string | null;
  expectedAt: number | null;
  timeoutAt: number | null;
  createdAt: number;
  updatedAt: number;
}

type Conn = Db | Tx;
const k = (c: Conn): Tx => ("kysely" in c ? c.kysely : c) as Tx;
const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const monitorCols = ["id", "project_id", "slug", "name", "status", "muted", "config", "created_at", "updated_at"] as const;
const envCols = [
  "id",
  "monitor_id",
  "environment",
  "status",
  "last_checkin_at",
  "next_checkin_at",
  "next_checkin_latest",
  "failures",
  "successes",
  "issue_id",
] as const;

interface MonitorSelect {
  id: number;
  project_id: number;
  slug: string;
  name: string;
  status: string;
  muted: number;
  config: string;
  created_at: number;
  updated_at: number;
}

function toMonitor(r: MonitorSelect): MonitorRecord {
  return {
    id: Number(r.id),
    projectId: Number(r.project_id),
    slug: r.slug,
    name: r.name,
    status: r.status === "paused" ? "paused" : "active",
    muted: Number(r.muted) === 1,
    config: JSON.parse(r.config) as MonitorConfig,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

interface EnvSelect {
  id: number;
  monitor_id: number;
  environment: string;
  status: string;
  last_checkin_at: number | null;
  next_checkin_at: number | null;
  next_checkin_latest: number | null;
  failures: number;
  successes: number;
  issue_id: number | null;
}

function toEnv(r: EnvSelect): MonitorEnvRecord {
  return {
    id: Number(r.id),
    monitorId: Number(r.monitor_id),
    environment: r.environment,
    status: r.status,
    lastCheckinAt: n(r.last_checkin_at),
    nextCheckinAt: n(r.next_checkin_at),
    nextCheckinLatest: n(r.next_checkin_latest),
    failures: Number(r.failures),
    successes: Number(r.successes),
    issueId: n(r.issue_id),
  };
}

// ---------------------------------------------------------------------------------------------
// Monitors

export async function findMonitor(c: Conn, projectId: number, slug: string): Promise<MonitorRecord | undefined> {
  const r = await k(c)
    .selectFrom("monitors")
    .select(monitorCols)
    .where("project_id", "=", projectId)
    .where("slug", "=", slug)
    .executeTakeFirst();
  return r ? toMonitor(r) : undefined;
}

export async function getMonitor(c: Conn, id: number): Promise<MonitorRecord | undefined> {
  const r = await k(c).selectFrom("monitors").select(monitorCols).where("id", "=", id).executeTakeFirst();
  return r ? toMonitor(r) : undefined;
}

/** Creates the monitor, or returns the existing one (a concurrent creator wins). */
export async function insertMonitor(
  c: Conn,
  m: { projectId: number; slug: string; name: string; config: MonitorConfig; status?: "active" | "paused" },
  now: number,
): Promise<MonitorRecord> {
  await k(c)
    .insertInto("monitors")
    .values({
      project_id: m.projectId,
      slug: m.slug,
      name: m.name,
      status: m.status ?? "active",
      muted: 0,
      config: JSON.stringify(m.config),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["project_id", "slug"]).doNothing())
    .execute();
  return (await findMonitor(c, m.projectId, m.slug)) as MonitorRecord;
}

export async function updateMonitor(
  c: Conn,
  id: number,
  patch: { name?: string; config?: MonitorConfig; status?: "active" | "paused"; muted?: boolean },
  now: number,
): Promise<void> {
  await k(c)
    .updateTable("monitors")
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.config !== undefined ? { config: JSON.stringify(patch.config) } : {}),
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(patch.muted !== undefined ? { muted: patch.muted ? 1 : 0 } : {}),
      updated_at: now,
    })
    .where("id", "=", id)
    .execute();
}

export async function listMonitors(c: Conn, projectIds: number[]): Promise<MonitorRecord[]> {
  if (projectIds.length === 0) return [];
  const rows = await k(c)
    .selectFrom("monitors")
    .select(monitorCols)
    .where("project_id", "in", projectIds)
    .orderBy("slug")
    .orderBy("id")
    .execute();
  return rows.map(toMonitor);
}

export async function deleteMonitor(c: Conn, id: number): Promise<void> {
  await k(c).deleteFrom("monitor_checkins").where("monitor_id", "=", id).execute();
  await k(c).deleteFrom("monitor_environments").where("monitor_id", "=", id).execute();
  await k(c).deleteFrom("monitors").where("id", "=", id).execute();
}

// ---------------------------------------------------------------------------------------------
// Environments

/**
 * The environment's row, created if new, and on PostgreSQL locked to the end of the transaction:
 * two digest transactions holding the two check-ins of one job run (in_progress, then error) would
 * otherwise both find no check-in, both insert, and the loser's close would be dropped as a
 * duplicate. Locked, the second waits, then reads the first's row and its streak. SQLite's write
 * transaction is exclusive already.
 */
export async function getOrCreateEnvironment(tx: Tx, monitorId: number, environment: string, now: number): Promise<MonitorEnvRecord> {
  await tx
    .insertInto("monitor_environments")
    .values({ monitor_id: monitorId, environment, status: "active", created_at: now })
    .onConflict((oc) => oc.columns(["monitor_id", "environment"]).doNothing())
    .execute();
  let q = tx.selectFrom("monitor_environments").select(envCols).where("monitor_id", "=", monitorId).where("environment", "=", environment);
  if (isPostgres(tx)) q = q.forUpdate();
  return toEnv(await q.executeTakeFirstOrThrow());
}

export async function getEnvironment(c: Conn, id: number): Promise<MonitorEnvRecord | undefined> {
  const r = await k(c).selectFrom("monitor_environments").select(envCols).where("id", "=", id).executeTakeFirst();
  return r ? toEnv(r) : undefined;
}

export async function listEnvironments(c: Conn, monitorIds: number[]): Promise<MonitorEnvRecord[]> {
  if (monitorIds.length === 0) return [];
  const rows = await k(c)
    .selectFrom("monitor_environments")
    .select(envCols)
    .where("monitor_id", "in", monitorIds)
    .orderBy("environment")
    .execute();
  return rows.map(toEnv);
}

export interface EnvUpdate {
  status?: string;
  lastCheckinAt?: number;
  nextCheckinAt?: number | null;
  nextCheckinLatest?: number | null;
  failures?: number;
  successes?: number;
  issueId?: number | null;
}

/**
 * Updates an environment; with `expectLatest`, only while its deadline is still that value (the
 * evaluator's compare-and-set: whoever moves the deadline first owns the misses before it).
 */
export async function updateEnvironment(tx: Tx, id: number, u: EnvUpdate, expectLatest?: number | null): Promise<boolean> {
  let q = tx
    .updateTable("monitor_environments")
    .set({
      ...(u.status !== undefined ? { status: u.status } : {}),
      ...(u.lastCheckinAt !== undefined ? { last_checkin_at: u.lastCheckinAt } : {}),
      ...(u.nextCheckinAt !== undefined ? { next_checkin_at: u.nextCheckinAt } : {}),
      ...(u.nextCheckinLatest !== undefined ? { next_checkin_latest: u.nextCheckinLatest } : {}),
      ...(u.failures !== undefined ? { failures: u.failures } : {}),
      ...(u.successes !== undefined ? { successes: u.successes } : {}),
      ...(u.issueId !== undefined ? { issue_id: u.issueId } : {}),
    })
    .where("id", "=", id);
  if (expectLatest !== undefined)
    q = q.where((eb) => (expectLatest === null ? eb("next_checkin_latest", "is", null) : eb("next_checkin_latest", "=", expectLatest)));
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0) > 0;
}

/** Environments of active monitors whose deadline passed. */
export async function listOverdueEnvironments(c: Conn, now: number, limit: number): Promise<MonitorEnvRecord[]> {
  const rows = await k(c)
    .selectFrom("monitor_environments as e")
    .innerJoin("monitors as m", "m.id", "e.monitor_id")
    .select(envCols.map((col) => `e.${col}` as const))
    .where("m.status", "=", "active")
    .where("e.next_checkin_latest", "<=", now)
    .orderBy("e.next_checkin_latest")
    .limit(limit)
    .execute();
  return rows.map(toEnv);
}

// ---------------------------------------------------------------------------------------------
// Check-ins

const checkInCols = [
  "c.id",
  "c.monitor_id",
  "c.monitor_environment_id",
  "c.check_in_id",
  "c.status",
  "c.duration_ms",
  "c.release",
  "c.expected_at",
  "c.timeout_at",
  "c.created_at",
  "c.updated_at",
  "e.environment",
] as const;

interface CheckInSelect {
  id: number;
  monitor_id: number;
  monitor_environment_id: number;
  check_in_id: string;
  status: string;
  duration_ms: number | null;
  release: string | null;
  expected_at: number | null;
  timeout_at: number | null;
  created_at: number;
  updated_at: number;
  environment: string;
}

function toCheckIn(r: CheckInSelect): CheckInRecord {
  return {
    id: Number(r.id),
    monitorId: Number(r.monitor_id),
    environmentId: Number(r.monitor_environment_id),
    environment: r.environment,
    checkInId: r.check_in_id,
    status: r.status,
    durationMs: n(r.duration_ms),
    release: r.release,
    expectedAt: n(r.expected_at),
    timeoutAt: n(r.timeout_at),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function checkIns(c: Conn) {
  return k(c)
    .selectFrom("monitor_checkins as c")
    .innerJoin("monitor_environments as e", "e.id", "c.monitor_environment_id")
    .select(checkInCols);
}

export async function findCheckIn(c: Conn, environmentId: number, checkInId: string): Promise<CheckInRecord | undefined> {
  const r = await checkIns(c)
    .where("c.monitor_environment_id", "=", environmentId)
    .where("c.check_in_id", "=", checkInId)
    .executeTakeFirst();
  return r ? toCheckIn(r) : undefined;
}

export interface NewCheckIn {
  monitorId: number;
  environmentId: number;
  projectId: number;
  checkInId: string;
  status: string;
  durationMs: number | null;
  release: string | null;
  expectedAt: number | null;
  timeoutAt: number | null;
  at: number;
}

/** Inserts a check-in; false when (environment, check_in_id) exists already (a retried row, a second evaluator). */
export async function insertCheckIn(tx: Tx, c: NewCheckIn): Promise<boolean> {
  const res = await tx
    .insertInto("monitor_checkins")
    .values({
      monitor_id: c.monitorId,
      monitor_environment_id: c.environmentId,
      project_id: c.projectId,
      check_in_id: c.checkInId,
      status: c.status,
      duration_ms: c.durationMs,
      release: c.release,
      expected_at: c.expectedAt,
      timeout_at: c.timeoutAt,
      created_at: c.at,
      updated_at: c.at,
    })
    .onConflict((oc) => oc.columns(["monitor_environment_id", "check_in_id"]).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Closes an in_progress check-in (compare-and-set on the status): false when it was closed already. */
export async function closeCheckIn(tx: Tx, id: number, status: string, durationMs: number | null, at: number): Promise<boolean> {
  const res = await tx
    .updateTable("monitor_checkins")
    .set({ status, duration_ms: durationMs, timeout_at: null, updated_at: at })
    .where("id", "=", id)
    .where("status", "=", "in_progress")
    .executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0) > 0;
}

/** in_progress check-ins of active monitors past their max runtime. */
export async function listTimedOutCheckIns(c: Conn, now: number, limit: number): Promise<CheckInRecord[]> {
  const rows = await checkIns(c)
    .innerJoin("monitors as m", "m.id", "c.monitor_id")
    .where("m.status", "=", "active")
    .where("c.status", "=", "in_progress")
    .where("c.timeout_at", "<=", now)
    .orderBy("c.timeout_at")
    .limit(limit)
    .execute();
  return rows.map(toCheckIn);
}

/** A monitor's check-ins, newest first (optionally one environment). */
export async function listCheckIns(
  c: Conn,
  monitorId: number,
  opts: { environmentId?: number; limit?: number } = {},
): Promise<CheckInRecord[]> {
  let q = checkIns(c).where("c.monitor_id", "=", monitorId);
  if (opts.environmentId !== undefined) q = q.where("c.monitor_environment_id", "=", opts.environmentId);
  const rows = await q
    .orderBy("c.created_at", "desc")
    .orderBy("c.id", "desc")
    .limit(Math.max(1, Math.min(opts.limit ?? 50, 1000)))
    .execute();
  return rows.map(toCheckIn);
}

/** The last `limit` check-ins of each given monitor (timeline strips), newest first per monitor. */
export async function recentCheckIns(c: Conn, monitorIds: number[], limit: number): Promise<Map<number, CheckInRecord[]>> {
  const out = new Map<number, CheckInRecord[]>();
  for (const id of monitorIds) out.set(id, await listCheckIns(c, id, { limit }));
  return out;
}

/**
 * Transaction-scoped leader lock for the evaluator on PostgreSQL (released at commit); SQLite has
 * one writer anyway. False: another process holds it.
 */
export async function tryEvaluatorLock(tx: Tx, dialect: "sqlite" | "postgres"): Promise<boolean> {
  if (dialect === "sqlite") return true;
  const r = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${MONITOR_LOCK_KEY}) as locked`.execute(tx);
  return r.rows[0]?.locked === true;
}

/** Arbitrary constant shared by every Errata process ("errata-monitors"). */
const MONITOR_LOCK_KEY = 0x6d6f6e69;

/** Sets every environment's next expectation (a resumed or rescheduled monitor). */
export async function resetExpectations(tx: Tx, monitorId: number, next: number, latest: number): Promise<void> {
  await tx
    .updateTable("monitor_environments")
    .set({ next_checkin_at: next, next_checkin_latest: latest })
    .where("monitor_id", "=", monitorId)
    .where("last_checkin_at", "is not", null)
    .execute();
}

/**
 * Deletes up to `limit` of a monitor's finished check-ins created before `cutoff` (retention); an
 * open in_progress check-in stays, so its closing check-in still finds it. Returns how many.
 */
export async function deleteCheckinsBefore(tx: Tx, monitorId: number, cutoff: number, limit: number): Promise<number> {
  const ids = tx
    .selectFrom("monitor_checkins")
    .select("id")
    .where("monitor_id", "=", monitorId)
    .where("created_at", "<", cutoff)
    .where("status", "!=", "in_progress")
    .limit(limit);
  const res = await tx.deleteFrom("monitor_checkins").where("id", "in", ids).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** The environment's most recent in_progress check-in (Sentry's zero check-in id closes it). */
export async function latestOpenCheckIn(c: Conn, environmentId: number): Promise<CheckInRecord | undefined> {
  const r = await checkIns(c)
    .where("c.monitor_environment_id", "=", environmentId)
    .where("c.status", "=", "in_progress")
    .orderBy("c.created_at", "desc")
    .orderBy("c.id", "desc")
    .limit(1)
    .executeTakeFirst();
  return r ? toCheckIn(r) : undefined;
}
