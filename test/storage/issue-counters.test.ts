import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { IssueCounters } from "../../src/pipeline/issue-counters";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { getIssue, type IssueEventUpdate, insertIssue, recordIssueEvent } from "../../src/storage/issues/issues";
import { dialects, openTestDb } from "../helpers/test-db";
import { createProject } from "../pipeline/helpers";

const T = Date.UTC(2026, 10, 24, 8, 0, 0);

/** Out-of-order times, a null release between two others, levels changing: what retries produce. */
const EVENTS: IssueEventUpdate[] = [
  { seenAt: T + 5_000, level: "error", eventId: "a".repeat(32), release: null, newUser: true },
  { seenAt: T - 60_000, level: "warning", eventId: "b".repeat(32), release: "1.0.0", newUser: false },
  { seenAt: T + 9_000, level: "fatal", eventId: "c".repeat(32), release: null, newUser: true },
  { seenAt: T + 1_000, level: "error", eventId: "d".repeat(32), release: "1.1.0", newUser: false },
  { seenAt: T + 2_000, level: "info", eventId: "e".repeat(32), release: null, newUser: true },
];

/** An unresolved issue created at T, with no events counted yet. */
function newIssue(db: Db, projectId: number, hash: string) {
  return writeTx(db, (tx) =>
    insertIssue(tx, {
      projectId,
      title: "E",
      culprit: "c",
      type: "error",
      level: "error",
      metadata: {},
      seenAt: T,
      release: null,
      hashes: [hash],
      groupingVersion: "v2",
    }),
  );
}

describe.each(await dialects())("one issue update per issue per batch on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("deferred counters leave the issue exactly as counting each event would", async () => {
    const projectId = await createProject(db, `counters-${dialect}`);
    const one = await newIssue(db, projectId, "h-one");
    const batched = await newIssue(db, projectId, "h-batched");
    await writeTx(db, async (tx) => {
      for (const e of EVENTS) await recordIssueEvent(tx, one.id, e);
    });
    await writeTx(db, async (tx) => {
      const counters = new IssueCounters(T);
      // The first event is counted one by one (its state decides), the others are deferred.
      const [first, ...rest] = EVENTS;
      counters.counted(batched.id, await recordIssueEvent(tx, batched.id, first as IssueEventUpdate));
      expect(counters.canDefer(batched.id)).toBe(true);
      for (const e of rest) counters.defer(batched.id, e);
      await counters.flush(tx);
    });
    const a = await getIssue(db, one.id);
    const b = await getIssue(db, batched.id);
    const pick = (i: typeof a) => ({
      eventCount: i?.eventCount,
      userCount: i?.userCount,
      firstSeen: i?.firstSeen,
      lastSeen: i?.lastSeen,
      level: i?.level,
      firstEventId: i?.firstEventId,
      lastEventId: i?.lastEventId,
      firstRelease: i?.firstRelease,
      lastRelease: i?.lastRelease,
    });
    expect(pick(b)).toEqual(pick(a));
    expect(pick(a)).toMatchObject({
      eventCount: 5,
      userCount: 3,
      // The newest (T + 9 s), not the last digested (T + 2 s): retries and batches of two
      // digesters commit out of order.
      lastEventId: "c".repeat(32),
      // and its level, not the last digested event's
      level: "fatal",
      firstRelease: "1.0.0",
      lastRelease: "1.1.0",
    });
  });

  test("a batch that commits after a newer one leaves the newer event as the issue's last, with its level", async () => {
    const projectId = await createProject(db, `last-event-${dialect}`);
    const issue = await newIssue(db, projectId, "h-last");
    const ev = (id: string, seenAt: number, level = "error"): IssueEventUpdate => ({
      seenAt,
      level,
      eventId: id.repeat(32),
      release: null,
      newUser: false,
    });
    // An event older than the issue's creation still becomes its first last event (none yet).
    await writeTx(db, async (tx) => {
      await recordIssueEvent(tx, issue.id, ev("a", T - 1_000));
    });
    expect((await getIssue(db, issue.id))?.lastEventId).toBe("a".repeat(32));
    await writeTx(db, async (tx) => {
      await recordIssueEvent(tx, issue.id, ev("n", T + 10_000, "fatal"));
    });
    // The older batch commits last, counted one by one and deferred: the newer event stays.
    await writeTx(db, async (tx) => {
      const counters = new IssueCounters(T);
      counters.counted(issue.id, await recordIssueEvent(tx, issue.id, ev("o", T + 1_000, "warning")));
      counters.defer(issue.id, ev("p", T + 2_000, "info"));
      await counters.flush(tx);
    });
    const after = await getIssue(db, issue.id);
    expect({ last: after?.lastEventId, level: after?.level, lastSeen: after?.lastSeen, count: after?.eventCount }).toEqual({
      last: "n".repeat(32),
      level: "fatal",
      lastSeen: T + 10_000,
      count: 4,
    });
  });

  test("an older batch with an older release committing last leaves the newer release", async () => {
    const projectId = await createProject(db, `last-release-${dialect}`);
    const issue = await newIssue(db, projectId, "h-release");
    const ev = (id: string, seenAt: number, release: string | null): IssueEventUpdate => ({
      seenAt,
      level: "error",
      eventId: id.repeat(32),
      release,
      newUser: false,
    });
    await writeTx(db, async (tx) => {
      await recordIssueEvent(tx, issue.id, ev("n", T + 10_000, "2.0.0"));
      // A newer event without a release names no release.
      await recordIssueEvent(tx, issue.id, ev("m", T + 11_000, null));
    });
    // The batch of the last deploy's stragglers commits after: one by one, then deferred.
    await writeTx(db, async (tx) => {
      const counters = new IssueCounters(T);
      counters.counted(issue.id, await recordIssueEvent(tx, issue.id, ev("o", T + 1_000, "1.0.0")));
      counters.defer(issue.id, ev("p", T + 2_000, "1.0.0"));
      await counters.flush(tx);
    });
    expect(await getIssue(db, issue.id)).toMatchObject({ lastRelease: "2.0.0", firstRelease: "2.0.0", eventCount: 4 });
    // An event with a release older than the newest event but newer than the release's event wins.
    await writeTx(db, async (tx) => {
      await recordIssueEvent(tx, issue.id, ev("q", T + 10_500, "2.0.1"));
    });
    expect((await getIssue(db, issue.id))?.lastRelease).toBe("2.0.1");
    // An issue from before migration 0026 (no time for its release): any event with a release sets it.
    await db.kysely.updateTable("issues").set({ last_release_seen: null }).where("id", "=", issue.id).execute();
    await writeTx(db, async (tx) => {
      await recordIssueEvent(tx, issue.id, ev("r", T + 500, "0.9.0"));
    });
    expect((await getIssue(db, issue.id))?.lastRelease).toBe("0.9.0");
  });

  test("a resolved issue is never deferred: its next event needs the lifecycle step", async () => {
    const counters = new IssueCounters(T);
    counters.counted(7, {
      status: "resolved",
      substatus: "resolved",
      firstSeen: T,
      statusChangedAt: T,
      resolvedAt: T,
      resolution: { kind: "now" },
      ignore: null,
      eventCount: 1,
      userCount: 0,
    });
    expect(counters.canDefer(7)).toBe(false);
  });
});
