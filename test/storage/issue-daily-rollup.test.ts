/**
 * The 0042 daily rollup on both databases: `issue_daily` holds exactly the per-UTC-day sums of
 * `issue_hourly` after the digest's write, a merge, an unmerge and a delete, and after the
 * migration backfills it; and series read from it match the hourly counts.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertEvent } from "../../src/storage/events/events";
import {
  bucketSeries,
  DAY_MS,
  deleteIssueStats,
  HOUR_MS,
  IssueStatsBatch,
  moveIssueStats,
  writeIssueStats,
} from "../../src/storage/issues/stats";
import { issueEventsAfter, moveEventsForSplit } from "../../src/storage/issues/unmerge";
import * as m0042 from "../../src/storage/migrations/0042-issue-daily";
import { dialects, openTestDb } from "../helpers/test-db";

const DAY0 = Date.UTC(2026, 0, 10);
const PROJECT = 9;
const [A, B, C] = [201, 202, 203];

describe.each(await dialects())("issue daily rollup on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  const daily = async () =>
    (await db.kysely.selectFrom("issue_daily").select(["issue_id", "day", "count"]).orderBy("issue_id").orderBy("day").execute()).map(
      (r) => [Number(r.issue_id), Number(r.day), Number(r.count)],
    );
  /** The per-day sums of the hourly rows: what `issue_daily` must hold. */
  const hourlySums = async () => {
    const { rows } = await sql<{ issue_id: number; day: number; n: number }>`
      select issue_id, (hour / 86400000) * 86400000 as day, sum(count) as n from issue_hourly
      group by issue_id, (hour / 86400000) * 86400000 having sum(count) > 0 order by issue_id, day`.execute(db.kysely);
    return rows.map((r) => [Number(r.issue_id), Number(r.day), Number(r.n)]);
  };
  const expectRollupRight = async () => {
    const sums = await hourlySums();
    expect(sums.length).toBeGreaterThan(0);
    expect(await daily()).toEqual(sums);
  };

  let n = 0;
  /** Stores events of `issueId` at these times and counts them as the digest batch does. */
  const digest = async (issueId: number, times: number[]) => {
    const batch = new IssueStatsBatch();
    await writeTx(db, async (tx) => {
      for (const at of times) {
        const level = n % 2 ? "error" : "warning";
        await insertEvent(tx, {
          projectId: PROJECT,
          issueId,
          eventId: (n++).toString(16).padStart(32, "0"),
          receivedAt: at,
          timestamp: at,
          level,
          platform: "javascript",
          release: null,
          environment: null,
          title: "t",
          culprit: "",
          userKey: null,
          traceId: null,
          digest: null,
          payload: {},
        });
        batch.add(issueId, PROJECT, at, [["level", level]]);
      }
      await writeIssueStats(tx, batch);
    });
  };

  test("digest, merge, unmerge and delete keep the day rows equal to the hourly sums", async () => {
    // Several hours a day, around midnight, over three days; two batches touch the same day.
    await digest(A, [DAY0 + HOUR_MS, DAY0 + 5 * HOUR_MS, DAY0 + DAY_MS - 1, DAY0 + DAY_MS, DAY0 + DAY_MS + 3 * HOUR_MS]);
    await digest(A, [DAY0 + 5 * HOUR_MS + 10, DAY0 + 2 * DAY_MS + 7 * HOUR_MS]);
    await digest(B, [DAY0 + 2 * HOUR_MS, DAY0 + 3 * DAY_MS]);
    await expectRollupRight();
    expect((await daily()).filter(([id]) => id === A)).toEqual([
      [A, DAY0, 4],
      [A, DAY0 + DAY_MS, 2],
      [A, DAY0 + 2 * DAY_MS, 1],
    ]);

    // Merge B into A: B's days join A's.
    await writeTx(db, (tx) => moveIssueStats(tx, [B], A));
    await expectRollupRight();
    expect((await daily()).filter(([id]) => id === B)).toEqual([]);
    expect((await daily()).filter(([id]) => id === A)).toEqual([
      [A, DAY0, 5],
      [A, DAY0 + DAY_MS, 2],
      [A, DAY0 + 2 * DAY_MS, 1],
      [A, DAY0 + 3 * DAY_MS, 1],
    ]);

    // Unmerge A's events of the second day into C: that day leaves A whole (no zero row stays).
    await writeTx(db, async (tx) => {
      const events = (await issueEventsAfter(tx, A, 0, 100)).filter(
        (e) => e.receivedAt >= DAY0 + DAY_MS && e.receivedAt < DAY0 + 2 * DAY_MS,
      );
      expect(events).toHaveLength(2);
      await moveEventsForSplit(tx, { projectId: PROJECT, fromIssueId: A, toIssueId: C }, events, (e) => [["level", e.level]]);
    });
    await expectRollupRight();
    expect((await daily()).filter(([id]) => id !== A)).toEqual([[C, DAY0 + DAY_MS, 2]]);
    expect((await daily()).some(([id, day]) => id === A && day === DAY0 + DAY_MS)).toBe(false);

    // Delete C: its days go with its hours.
    await writeTx(db, (tx) => deleteIssueStats(tx, [C]));
    await expectRollupRight();
    expect((await daily()).filter(([id]) => id === C)).toEqual([]);
  });

  test("series read from the day rows match the hour rows, several series in one query", async () => {
    const from = DAY0 - 10 * DAY_MS;
    const [fromDaily, fromHourly] = await bucketSeries(
      db,
      [A, B],
      [
        { from, bucketMs: DAY_MS, buckets: 14 },
        // Not day-aligned (an hour earlier): summed from issue_hourly, so 23:59 of DAY0 moves a bucket on.
        { from: from - HOUR_MS, bucketMs: DAY_MS, buckets: 14 },
      ],
    );
    expect(fromDaily?.get(A)).toEqual([...new Array<number>(10).fill(0), 5, 0, 1, 1]);
    expect(fromHourly?.get(A)).toEqual([...new Array<number>(10).fill(0), 4, 1, 1, 1]);
    expect(fromDaily?.get(B)).toEqual(new Array<number>(14).fill(0));
    // 24 hourly buckets of the first day, in the same query as a daily series.
    const [hours, days] = await bucketSeries(
      db,
      [A],
      [
        { from: DAY0, bucketMs: HOUR_MS, buckets: 24 },
        { from: DAY0, bucketMs: DAY_MS, buckets: 3 },
      ],
    );
    expect(hours?.get(A)?.filter((c) => c > 0)).toEqual([1, 1, 2, 1]);
    expect(days?.get(A)).toEqual([5, 0, 1]);
    expect(await bucketSeries(db, [], [{ from, bucketMs: DAY_MS, buckets: 14 }])).toEqual([new Map()]);
  });

  test("the migration rolls up hourly counts stored before it", async () => {
    const before = await daily();
    await db.kysely.schema.dropTable("issue_daily").execute();
    await m0042.up(db.kysely as never, dialect);
    expect(await daily()).toEqual(before);
    await expectRollupRight();
  });
});
