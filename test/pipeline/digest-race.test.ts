/**
 * Two workers on PostgreSQL storing the same event at once. The batch's keys go into event_keys
 * with one INSERT … ON CONFLICT DO NOTHING (and only new keys' events into events, same
 * statement); an event another worker stored meanwhile is a duplicate, and an
 * issue this batch created only for such events is removed again, while one that also got a stored
 * event stays. The other worker is a plain transaction holding the conflicting row uncommitted:
 * the digest's INSERT waits on it (seen in pg_stat_activity, no sleeping), then skips the row.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { digestBatch } from "../../src/pipeline/digest-batch";
import type { Db } from "../../src/storage/db";
import { getEvent } from "../../src/storage/events/events";
import { countIssues, getIssue } from "../../src/storage/issues/issues";
import { claimBatch, enqueueMany, type QueueInsert } from "../../src/storage/queue/queue";
import { eventually } from "../helpers/server";
import { openTestDb, postgresAvailable, type TestDatabase } from "../helpers/test-db";
import { createProject, deps, hexId } from "./helpers";

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

describe.runIf(await postgresAvailable())("digest racing another worker on postgres", () => {
  let db: Db;
  let info: TestDatabase;
  let close: () => Promise<void>;
  let other: pg.Client;
  /** pg_stat_activity is read once per transaction: watched from outside `other`'s. */
  let watcher: pg.Client;
  beforeAll(async () => {
    ({ db, close, info } = await openTestDb("postgres"));
    other = new pg.Client({ connectionString: info.databaseUrl });
    watcher = new pg.Client({ connectionString: info.databaseUrl });
    await Promise.all([other.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await Promise.all([other?.end(), watcher?.end()]);
    await close();
  });

  const store = (projectId: number, id: string, message: string): QueueInsert => ({
    projectId,
    keyId: 1,
    receivedAt: NOW,
    clientIp: null,
    kind: "store",
    body: Buffer.from(JSON.stringify({ event_id: id, message })),
  });

  /** Runs the batch while `other` holds uncommitted rows for `taken`; commits them once the digest waits. */
  async function digestAgainst(projectId: number, items: QueueInsert[], taken: string[]) {
    await enqueueMany(db, items);
    await other.query("BEGIN");
    for (const id of taken) {
      await other.query("INSERT INTO event_keys (project_id, event_id) VALUES ($1, $2)", [projectId, id]);
      await other.query(
        `INSERT INTO events (project_id, issue_id, event_id, received_at, timestamp, level, platform, title, size, payload)
         VALUES ($1, 999999, $2, $3, $3, 'error', 'other', 'stored by the other worker', 0, '\\x00')`,
        [projectId, id, NOW],
      );
    }
    const claimed = await claimBatch(db, NOW, 100, 60_000);
    const digest = digestBatch(db, claimed, deps(NOW));
    const dbName = new URL(info.databaseUrl ?? "").pathname.slice(1);
    await eventually(
      async () => {
        const waiting = await watcher.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query ILIKE '%insert into event_keys%'`,
          [dbName],
        );
        return waiting.rowCount === 1;
      },
      30_000,
      "the digest's INSERT to wait for the other worker",
    );
    await other.query("COMMIT");
    return digest;
  }

  test("an event stored by the other worker meanwhile is a duplicate, and the issue created for it alone is removed", async () => {
    const projectId = await createProject(db, "race-alone");
    const id = hexId("race-alone");
    const result = await digestAgainst(projectId, [store(projectId, id, "raced alone")], [id]);
    expect(result).toEqual({ events: 0, duplicates: 1, skipped: 0, failed: 0 });
    expect((await getEvent(db, projectId, id))?.title).toBe("stored by the other worker");
    expect(await countIssues(db, { projectIds: [projectId] })).toBe(0);
  });

  test("the issue stays when another event of the batch was stored on it", async () => {
    const projectId = await createProject(db, "race-shared");
    const [lost, kept] = [hexId("race-lost"), hexId("race-kept")];
    const result = await digestAgainst(projectId, [store(projectId, lost, "raced shared"), store(projectId, kept, "raced shared")], [lost]);
    expect(result).toEqual({ events: 1, duplicates: 1, skipped: 0, failed: 0 });
    const ev = await getEvent(db, projectId, kept);
    expect(ev).toBeDefined();
    expect(await countIssues(db, { projectIds: [projectId] })).toBe(1);
    expect((await getIssue(db, ev?.issueId ?? -1))?.eventCount).toBe(1);
  });
});
