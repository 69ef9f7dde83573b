/**
 * Monitor history under retention, on both databases: finished cron check-ins and uptime results
 * older than MONITOR_HISTORY_DAYS (or the project's shorter retention) are deleted; recent ones,
 * an open in_progress check-in, the monitors and their state stay.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { MonitorConfig } from "../../src/core/monitors/checkin";
import { runRetention } from "../../src/pipeline/retention";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { getOrCreateEnvironment, insertCheckIn, insertMonitor, listCheckIns, listEnvironments } from "../../src/storage/monitors/monitors";
import { getUptimeMonitor, insertUptimeMonitor, listUptimeResults, recordUptimeResult } from "../../src/storage/monitors/uptime";
import { dialects, openTestDb } from "../helpers/test-db";
import { createProject } from "../pipeline/helpers";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 1);

const CRON: MonitorConfig = {
  schedule: { type: "crontab", value: "0 * * * *" },
  timezone: "UTC",
  checkinMargin: 1,
  maxRuntime: 30,
  failureIssueThreshold: 1,
  recoveryThreshold: 1,
};

describe.each(await dialects())("monitor history retention (%s)", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("old finished check-ins and old uptime results go; recent ones, open check-ins and state stay", async () => {
    const projectId = await createProject(db, "mon-history");
    const ages = [45, 31, 29, 1]; // days before NOW
    const { cronId, uptimeId } = await writeTx(db, async (tx) => {
      const m = await insertMonitor(tx, { projectId, slug: "nightly", name: "Nightly", config: CRON }, NOW - 60 * DAY);
      const env = await getOrCreateEnvironment(tx, m.id, "production", NOW - 60 * DAY);
      for (const age of ages) {
        const base = {
          monitorId: m.id,
          environmentId: env.id,
          projectId,
          durationMs: 1000,
          release: null,
          expectedAt: null,
          timeoutAt: null,
        };
        await insertCheckIn(tx, { ...base, checkInId: `ok-${age}`, status: "ok", at: NOW - age * DAY });
      }
      const open = {
        monitorId: m.id,
        environmentId: env.id,
        projectId,
        durationMs: null,
        release: null,
        expectedAt: null,
        timeoutAt: null,
      };
      await insertCheckIn(tx, { ...open, checkInId: "still-running", status: "in_progress", at: NOW - 40 * DAY });
      const u = await insertUptimeMonitor(
        tx,
        {
          projectId,
          name: "site",
          config: {
            url: "https://example.com/",
            method: "GET",
            intervalS: 60,
            timeoutMs: 5000,
            statusMin: 200,
            statusMax: 299,
            keyword: null,
            headers: {},
            failureThreshold: 3,
            recoveryThreshold: 1,
          },
        },
        NOW - 60 * DAY,
      );
      for (const age of ages) {
        await recordUptimeResult(
          tx,
          u.id,
          { checkedAt: NOW - age * DAY, up: true, status: 200, latencyMs: 12, error: null },
          { state: "up", failures: 0, successes: 4, issueId: null },
        );
      }
      return { cronId: m.id, uptimeId: u.id };
    });
    const envBefore = await listEnvironments(db, [cronId]);
    const uptimeBefore = await getUptimeMonitor(db, uptimeId);

    const r = await runRetention(db, {
      now: NOW,
      defaults: { days: 90, eventCap: 1_000_000, monitorDays: 30 },
      batchSize: 1,
      yieldBetween: async () => {},
    });
    expect(r.monitorRows).toBe(4);
    const checkIns = (await listCheckIns(db, cronId, { limit: 100 })).map((c) => c.checkInId).sort();
    expect(checkIns).toEqual(["ok-1", "ok-29", "still-running"]);
    const results = await listUptimeResults(db, uptimeId, 0);
    expect(results.map((x) => Math.round((NOW - x.checkedAt) / DAY)).sort((a, b) => a - b)).toEqual([1, 29]);
    expect(await listEnvironments(db, [cronId])).toEqual(envBefore);
    expect(await getUptimeMonitor(db, uptimeId)).toEqual(uptimeBefore);

    // A project whose retention is shorter than the monitor history keeps only that much.
    await db.kysely
      .updateTable("projects")
      .set({ settings: JSON.stringify({ retentionDays: 7 }) })
      .where("id", "=", projectId)
      .execute();
    await runRetention(db, {
      now: NOW,
      defaults: { days: 90, eventCap: 1_000_000, monitorDays: 30 },
      batchSize: 10,
      yieldBetween: async () => {},
    });
    expect((await listCheckIns(db, cronId, { limit: 100 })).map((c) => c.checkInId).sort()).toEqual(["ok-1", "still-running"]);
    expect((await listUptimeResults(db, uptimeId, 0)).length).toBe(1);
  });
});
