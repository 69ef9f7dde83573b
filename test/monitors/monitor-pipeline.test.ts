/**
 * Check-ins through the real queue and digest (both databases), and the schedule evaluator with an
 * explicit clock: states, missed and timed-out runs exactly once, issue opened, reopened and
 * resolved with activity entries.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseCheckIn } from "../../src/core/monitors/checkin";
import { MONITOR_WAIT_ATTEMPTS, storeCheckIn } from "../../src/pipeline/monitor-checkins";
import { evaluateMonitors } from "../../src/pipeline/monitor-evaluator";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { getLatestEvent } from "../../src/storage/events/events";
import { listActivity } from "../../src/storage/issues/activity";
import { getIssue } from "../../src/storage/issues/issues";
import { findMonitor, getOrCreateEnvironment, insertCheckIn, listCheckIns, listEnvironments } from "../../src/storage/monitors/monitors";
import { enqueueMany, queueStore } from "../../src/storage/queue/queue";
import { dialects, openTestDb } from "../helpers/test-db";
import { createProject, drain, hexId } from "../pipeline/helpers";

const T0 = Date.UTC(2026, 0, 5, 10, 0, 30); // 10:00:30 UTC
const MIN = 60_000;

function checkIn(projectId: number, at: number, body: Record<string, unknown>) {
  const env = `{}\n{"type":"check_in"}\n${JSON.stringify(body)}\n`;
  return { projectId, keyId: 1, receivedAt: at, clientIp: null, kind: "envelope" as const, body: Buffer.from(env) };
}

const hourly = { schedule: { type: "crontab", value: "0 * * * *" }, checkin_margin: 5, max_runtime: 10, timezone: "UTC" };

/**
 * Holds a transaction open at a chosen point: inside it, `opened()` then `await held`; outside,
 * `await openStored` (it got there), then `release()` to let it commit.
 */
function holdOpen() {
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  let opened = () => {};
  const openStored = new Promise<void>((r) => {
    opened = r;
  });
  return { held, release, opened, openStored };
}

describe.each(await dialects())("monitors on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  async function send(projectId: number, at: number, body: Record<string, unknown>) {
    await enqueueMany(db, [checkIn(projectId, at, body)]);
    await drain(db, at + 1000);
  }

  test("monitor_config creates the monitor; in_progress → ok with the SDK's duration; next run expected", async () => {
    const projectId = await createProject(db, "mon-create");
    const id = hexId("a");
    await send(projectId, T0, { check_in_id: id, monitor_slug: "Nightly Job", status: "in_progress", monitor_config: hourly });
    await send(projectId, T0 + 2000, { check_in_id: id, monitor_slug: "Nightly Job", status: "ok", duration: 1.5 });
    const m = await findMonitor(db, projectId, "nightly-job");
    expect(m?.config).toMatchObject({ schedule: { type: "crontab", value: "0 * * * *" }, checkinMargin: 5, maxRuntime: 10 });
    const [c] = await listCheckIns(db, m?.id ?? 0);
    expect(c).toMatchObject({ status: "ok", durationMs: 1500, environment: "production" });
    const [env] = await listEnvironments(db, [m?.id ?? 0]);
    expect(env).toMatchObject({ status: "ok", nextCheckinAt: Date.UTC(2026, 0, 5, 11), nextCheckinLatest: Date.UTC(2026, 0, 5, 11, 5) });
  });

  async function outcomesOf(projectId: number) {
    const rows = await db.kysely
      .selectFrom("outcomes")
      .select(["category", "outcome", "reason", "quantity"])
      .where("project_id", "=", projectId)
      .execute();
    return Object.fromEntries(rows.map((r) => [`${r.category} ${r.outcome} ${r.reason}`, Number(r.quantity)]));
  }
  /** Drains on a clock a minute further each time, past every wait a check-in may take for its monitor. */
  async function drainPastWaits(at: number) {
    for (let i = 1; i <= MONITOR_WAIT_ATTEMPTS + 1; i++) await drain(db, at + i * MIN);
  }
  const queued = async (projectId: number) =>
    Number(
      (
        await queueStore(db)
          .kysely.selectFrom("queue")
          .where("project_id", "=", projectId)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test("a check-in for an unknown monitor without monitor_config waits for it, then is not stored; outcomes counted", async () => {
    const projectId = await createProject(db, "mon-unknown");
    await send(projectId, T0, { check_in_id: hexId("u"), monitor_slug: "ghost", status: "ok" });
    // Still queued, not yet counted: the monitor may be in another worker's open transaction.
    expect(await outcomesOf(projectId)).toEqual({});
    expect(await queued(projectId)).toBe(1);
    await drainPastWaits(T0);
    expect(await queued(projectId)).toBe(0);
    expect(await findMonitor(db, projectId, "ghost")).toBeUndefined();
    await send(projectId, T0, { check_in_id: hexId("v"), monitor_slug: "ghost", status: "exploded" });
    await send(projectId, T0, { check_in_id: hexId("w"), monitor_slug: "ghost", status: "ok", monitor_config: hourly });
    // Every check-in gets one outcome, its reason a catalogue code.
    expect(await outcomesOf(projectId)).toEqual({
      "monitor filtered monitor_not_found": 1,
      "monitor invalid invalid_check_in": 1,
      "monitor accepted ": 1,
    });
  });

  test("an ok digested before the in_progress that carries monitor_config waits for the monitor, then closes the run", async () => {
    // Two digest workers take a job's two envelopes in parallel: the ok (no config, as
    // captureCheckIn sends it) can reach its transaction before the in_progress creating the
    // monitor has committed.
    const projectId = await createProject(db, "mon-order");
    const id = hexId("o");
    await send(projectId, T0, { check_in_id: id, monitor_slug: "late-config", status: "ok", duration: 2 });
    expect(await findMonitor(db, projectId, "late-config")).toBeUndefined();
    await send(projectId, T0, { check_in_id: id, monitor_slug: "late-config", status: "in_progress", monitor_config: hourly });
    await drainPastWaits(T0);
    const m = await findMonitor(db, projectId, "late-config");
    const list = await listCheckIns(db, m?.id ?? 0);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ status: "ok", durationMs: 2000 });
    expect(await outcomesOf(projectId)).toEqual({ "monitor accepted ": 2 });
  });

  test("missed runs after downtime are marked once, open one issue; recovery resolves it; a new failure reopens it", async () => {
    const projectId = await createProject(db, "mon-missed");
    await send(projectId, T0, { check_in_id: hexId("m1"), monitor_slug: "job", status: "ok", monitor_config: hourly });
    const m = await findMonitor(db, projectId, "job");
    const monitorId = m?.id ?? 0;
    // (Other tests' monitors share the database: counts are read per monitor.)
    const statuses = async () => (await listCheckIns(db, monitorId)).map((c) => c.status);
    // Before the margin ends nothing happens.
    await evaluateMonitors(db, Date.UTC(2026, 0, 5, 11, 4, 59));
    expect(await statuses()).toEqual(["ok"]);
    // Down from 10:00 to 13:30: 11:00, 12:00 and 13:00 (13:05 passed) were missed, once.
    const late = Date.UTC(2026, 0, 5, 13, 30);
    // Two evaluators at once (PostgreSQL: two pooled connections; one leads, the other skips or
    // finds the deadlines moved) and a third after them: each miss is marked once.
    if (dialect === "postgres") await Promise.all([evaluateMonitors(db, late), evaluateMonitors(db, late)]);
    else await evaluateMonitors(db, late);
    await evaluateMonitors(db, late);
    const checkIns = await listCheckIns(db, monitorId);
    expect(checkIns.map((c) => c.status)).toEqual(["missed", "missed", "missed", "ok"]);
    const [env] = await listEnvironments(db, [monitorId]);
    expect(env.status).toBe("missed");
    expect(env.nextCheckinAt).toBe(Date.UTC(2026, 0, 5, 14));
    const issueId = env.issueId ?? 0;
    const issue = await getIssue(db, issueId);
    expect(issue).toMatchObject({ title: "Cron failure: job", status: "unresolved", eventCount: 3, type: "monitor_check_in_failure" });
    // Counted in the trend like any event; the check-in history rides along as breadcrumbs.
    const trend = await db.kysely.selectFrom("issue_hourly").select("count").where("issue_id", "=", issueId).execute();
    expect(trend.reduce((n, r) => n + Number(r.count), 0)).toBe(3);
    const latest = await getLatestEvent(db, issueId);
    if (!latest) throw new Error("the monitor issue has no event");
    const crumbs = (latest.event.breadcrumbs as { values: Array<{ message: string }> }).values.map((b) => b.message);
    expect(crumbs[0]).toMatch(/^ok /);
    expect(crumbs.at(-1)).toMatch(/^missed /);

    // Recovery (threshold 1) resolves it, with an activity entry by Errata.
    await send(projectId, late + MIN, { check_in_id: hexId("m2"), monitor_slug: "job", status: "ok" });
    expect((await getIssue(db, issueId))?.status).toBe("resolved");
    const resolved = (await listActivity(db, issueId)).find((a) => a.kind === "state_change");
    expect(resolved?.data).toMatchObject({ to: { status: "resolved" }, monitor: { slug: "job", reason: "recovered" } });
    expect((await listEnvironments(db, [monitorId]))[0].issueId).toBeNull();

    // The next failure reopens the same issue (regression activity).
    await send(projectId, late + 2 * MIN, { check_in_id: hexId("m3"), monitor_slug: "job", status: "error" });
    const reopened = await getIssue(db, issueId);
    expect(reopened).toMatchObject({ status: "unresolved", substatus: "regressed", eventCount: 4 });
    expect((await listActivity(db, issueId)).some((a) => a.kind === "regression")).toBe(true);
  });

  test("an in_progress check-in past max runtime times out exactly once; a late ok does not change it", async () => {
    const projectId = await createProject(db, "mon-timeout");
    const id = hexId("t1");
    await send(projectId, T0, { check_in_id: id, monitor_slug: "slow", status: "in_progress", monitor_config: hourly });
    const m = await findMonitor(db, projectId, "slow");
    const first = async () => (await listCheckIns(db, m?.id ?? 0))[0];
    await evaluateMonitors(db, T0 + 10 * MIN - 1);
    expect((await first()).status).toBe("in_progress");
    await evaluateMonitors(db, T0 + 10 * MIN);
    await evaluateMonitors(db, T0 + 10 * MIN + 1);
    expect((await first()).status).toBe("timeout");
    expect((await getIssue(db, (await listEnvironments(db, [m?.id ?? 0]))[0].issueId ?? 0))?.eventCount).toBe(1);
    await send(projectId, T0 + 11 * MIN, { check_in_id: id, monitor_slug: "slow", status: "ok" });
    const [c] = await listCheckIns(db, m?.id ?? 0);
    expect(c).toMatchObject({ status: "timeout", durationMs: 10 * MIN });
    const [env] = await listEnvironments(db, [m?.id ?? 0]);
    expect(env.status).toBe("timeout");
    expect(env.issueId).not.toBeNull();
  });

  test("failure_issue_threshold: two errors in a row before an issue; environments get their own issues", async () => {
    const projectId = await createProject(db, "mon-threshold");
    const cfg = { ...hourly, failure_issue_threshold: 2, recovery_threshold: 2 };
    await send(projectId, T0, { check_in_id: hexId("h1"), monitor_slug: "t", status: "error", monitor_config: cfg });
    const m = await findMonitor(db, projectId, "t");
    expect((await listEnvironments(db, [m?.id ?? 0]))[0].issueId).toBeNull();
    await send(projectId, T0 + MIN, { check_in_id: hexId("h2"), monitor_slug: "t", status: "error" });
    await send(projectId, T0 + MIN, { check_in_id: hexId("h3"), monitor_slug: "t", status: "error", environment: "staging" });
    await send(projectId, T0 + 2 * MIN, { check_in_id: hexId("h4"), monitor_slug: "t", status: "error", environment: "staging" });
    const envs = await listEnvironments(db, [m?.id ?? 0]);
    expect(envs.map((e) => e.environment)).toEqual(["production", "staging"]);
    expect(envs[0].issueId).not.toBeNull();
    expect(envs[1].issueId).not.toBeNull();
    expect(envs[0].issueId).not.toBe(envs[1].issueId);
    // One ok is not enough to recover with recovery_threshold 2.
    await send(projectId, T0 + 3 * MIN, { check_in_id: hexId("h5"), monitor_slug: "t", status: "ok" });
    expect((await getIssue(db, envs[0].issueId ?? 0))?.status).toBe("unresolved");
    await send(projectId, T0 + 4 * MIN, { check_in_id: hexId("h6"), monitor_slug: "t", status: "ok" });
    expect((await getIssue(db, envs[0].issueId ?? 0))?.status).toBe("resolved");
  });

  // One job run's in_progress and error check-ins digested by two transactions at once (two
  // workers, or two batches): the error's must wait for the in_progress's and close its check-in,
  // not find no check-in, lose the insert race and be dropped as a duplicate. The first
  // transaction is held where storeCheckIn has just inserted the open check-in.
  test.runIf(dialect === "postgres")("concurrent transactions: the close waits for the open and is applied", async () => {
    const projectId = await createProject(db, "mon-race");
    // The monitor and its environment exist already (a job's later runs): nothing else orders the two.
    await send(projectId, T0 - 60 * MIN, { check_in_id: hexId("q"), monitor_slug: "race", status: "ok", monitor_config: hourly });
    const monitor = (await findMonitor(db, projectId, "race")) as NonNullable<Awaited<ReturnType<typeof findMonitor>>>;
    const id = hexId("r");
    const parsed = parseCheckIn({ check_in_id: id, monitor_slug: "race", status: "error", monitor_config: hourly });
    if (!parsed.ok) throw new Error(parsed.reason);
    const { held, release, opened, openStored } = holdOpen();
    const first = writeTx(db, async (tx) => {
      const env = await getOrCreateEnvironment(tx, monitor.id, "production", T0);
      await insertCheckIn(tx, {
        monitorId: monitor.id,
        environmentId: env.id,
        projectId,
        checkInId: id,
        status: "in_progress",
        durationMs: null,
        release: null,
        expectedAt: null,
        timeoutAt: null,
        at: T0,
      });
      opened();
      await held;
    });
    await openStored;
    const second = writeTx(db, (tx) => storeCheckIn(tx, {}, projectId, parsed.value, T0 + 1000));
    // The second transaction is blocked on a lock the first holds (a condition, not a sleep).
    for (;;) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(db.kysely);
      if (rows[0].n > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    release();
    await first;
    expect(await second).toBe("accepted");
    const checkIns = await listCheckIns(db, monitor.id);
    expect(checkIns.find((c) => c.checkInId === id)?.status).toBe("error");
    const [env] = await listEnvironments(db, [monitor.id]);
    expect(env).toMatchObject({ status: "error", failures: 1 });
  });

  test.runIf(dialect === "postgres")(
    "two workers: an ok digested while the in_progress creating its monitor is uncommitted waits, then closes the run",
    async () => {
      const projectId = await createProject(db, "mon-two-workers");
      const id = hexId("t");
      const opening = parseCheckIn({ check_in_id: id, monitor_slug: "fresh", status: "in_progress", monitor_config: hourly });
      if (!opening.ok) throw new Error(opening.reason);
      const { held, release, opened, openStored } = holdOpen();
      // Worker 1: the in_progress with monitor_config, stored and not yet committed.
      const first = writeTx(db, async (tx) => {
        expect(await storeCheckIn(tx, {}, projectId, opening.value, T0)).toBe("accepted");
        opened();
        await held;
      });
      await openStored;
      // Worker 2 claims and digests the ok meanwhile (no monitor_config, as the SDKs send it).
      await enqueueMany(db, [checkIn(projectId, T0, { check_in_id: id, monitor_slug: "fresh", status: "ok", duration: 3 })]);
      await drain(db, T0 + 1000);
      expect(await queued(projectId)).toBe(1);
      release();
      await first;
      await drainPastWaits(T0);
      const monitor = await findMonitor(db, projectId, "fresh");
      const list = await listCheckIns(db, monitor?.id ?? 0);
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ checkInId: id, status: "ok", durationMs: 3000 });
      expect(await outcomesOf(projectId)).toEqual({ "monitor accepted ": 1 });
    },
  );
});
