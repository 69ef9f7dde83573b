/**
 * The 0007 statistics on both databases: batch upserts add up (one row per issue/hour and per
 * issue/tag value), merges fold counts into the survivor, and the migration counts events stored
 * before it existed.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertEvent } from "../../src/storage/events/events";
import {
  bucketCounts,
  deleteIssueStats,
  HOUR_MS,
  IssueStatsBatch,
  moveIssueStats,
  tagDistribution,
  writeIssueStats,
} from "../../src/storage/issues/stats";
import * as m0007 from "../../src/storage/migrations/0007-issue-stats";
import { dialects, openTestDb } from "../helpers/test-db";

const T = Date.UTC(2026, 0, 10, 12);

describe.each(await dialects())("issue statistics on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  const counts = async (id: number) => (await bucketCounts(db, [id], T - 2 * HOUR_MS, HOUR_MS, 3)).get(id);

  test("batches aggregate in memory and add up in the database", async () => {
    const a = new IssueStatsBatch();
    a.add(101, 1, T - HOUR_MS, [
      ["browser", "Chrome"],
      ["env", "prod"],
    ]);
    a.add(101, 1, T - HOUR_MS + 5, [
      ["browser", "Chrome"],
      ["env", "prod"],
    ]);
    a.add(101, 1, T, [
      ["browser", "Firefox\u0000"],
      ["env", "prod"],
    ]);
    expect(a.hourly.size).toBe(2);
    expect(a.values.size).toBe(3);
    await writeTx(db, (tx) => writeIssueStats(tx, a));
    const b = new IssueStatsBatch();
    b.add(101, 1, T, [["browser", "Chrome"]]);
    await writeTx(db, (tx) => writeIssueStats(tx, b));
    expect(await counts(101)).toEqual([0, 2, 2]);
    expect(await tagDistribution(db, 101)).toEqual([
      {
        key: "browser",
        total: 4,
        top: [
          { value: "Chrome", count: 3 },
          { value: "Firefox", count: 1 },
        ],
      },
      { key: "env", total: 3, top: [{ value: "prod", count: 3 }] },
    ]);
  });

  test("merging folds the counts into the survivor; deleting removes them", async () => {
    const c = new IssueStatsBatch();
    c.add(102, 1, T, [
      ["browser", "Chrome"],
      ["os", "Linux"],
    ]);
    await writeTx(db, (tx) => writeIssueStats(tx, c));
    await writeTx(db, (tx) => moveIssueStats(tx, [102], 101));
    expect(await counts(101)).toEqual([0, 2, 3]);
    expect(await counts(102)).toEqual([0, 0, 0]);
    const dist = await tagDistribution(db, 101);
    expect(dist.find((d) => d.key === "browser")).toEqual({
      key: "browser",
      total: 5,
      top: [
        { value: "Chrome", count: 4 },
        { value: "Firefox", count: 1 },
      ],
    });
    expect(dist.find((d) => d.key === "os")?.total).toBe(1);
    await writeTx(db, (tx) => deleteIssueStats(tx, [101]));
    expect(await tagDistribution(db, 101)).toEqual([]);
  });

  test("the migration counts events stored before it", async () => {
    await writeTx(db, async (tx) => {
      for (const [i, at] of [T - HOUR_MS, T, T + 10].entries()) {
        await insertEvent(tx, {
          projectId: 7,
          issueId: 555,
          eventId: `${"e".repeat(31)}${i}`,
          receivedAt: at,
          timestamp: at,
          level: i === 0 ? "warning" : "error",
          platform: "javascript",
          release: "r1",
          environment: i === 2 ? null : "prod",
          title: "t",
          culprit: "",
          userKey: null,
          traceId: null,
          digest: null,
          payload: {},
        });
      }
      // Back to before 0007, then run it again.
      for (const t of ["issue_hourly", "issue_tag_values", "issue_tag_keys"]) await tx.schema.dropTable(t).execute();
      for (const i of [
        "issues_project_first_seen",
        "issues_project_events",
        "issues_project_users",
        "issues_project_status_last_seen",
        "issues_status_last_seen",
      ])
        await tx.schema.dropIndex(i).execute();
    });
    await m0007.up(db.kysely as never, dialect);
    expect(await counts(555)).toEqual([0, 1, 2]);
    expect(await tagDistribution(db, 555)).toEqual([
      {
        key: "level",
        total: 3,
        top: [
          { value: "error", count: 2 },
          { value: "warning", count: 1 },
        ],
      },
      { key: "release", total: 3, top: [{ value: "r1", count: 3 }] },
      { key: "environment", total: 2, top: [{ value: "prod", count: 2 }] },
    ]);
  });
});
