/**
 * Retention on both databases: age-based deletion and the per-project event cap, in small
 * batches, never deleting an issue's first or latest event and never changing issue counts.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runMaintenance, runRetention } from "../../src/pipeline/retention";
import type { Db } from "../../src/storage/db";
import { countEvents, getLatestEvent } from "../../src/storage/events/events";
import { getIssue } from "../../src/storage/issues/issues";
import { enqueueMany } from "../../src/storage/queue/queue";
import { eventually } from "../helpers/server";
import { dialects, openTestDb } from "../helpers/test-db";
import { createProject, drain, hexId } from "../pipeline/helpers";

const DAY = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 5, 1);
const noPause = async () => {};
let seq = 0;

async function send(db: Db, projectId: number, message: string, receivedAt: number, user?: string): Promise<string> {
  seq += 1;
  const id = hexId(`retention:${seq}`);
  const body = {
    event_id: id,
    platform: "javascript",
    timestamp: receivedAt / 1000,
    exception: { values: [{ type: "RetentionError", value: message }] },
    ...(user ? { user: { id: user } } : {}),
  };
  await enqueueMany(db, [{ projectId, keyId: 1, receivedAt, clientIp: null, kind: "store", body: Buffer.from(JSON.stringify(body)) }]);
  // The digest keeps the receive time: drain "now" is only the lease clock.
  const r = await drain(db, receivedAt);
  if (r.events !== 1) throw new Error(`expected one stored event, got ${JSON.stringify(r)}`);
  return id;
}

async function storedIds(db: Db, issueId: number): Promise<string[]> {
  const rows = await db.kysely
    .selectFrom("events")
    .select("event_id")
    .where("issue_id", "=", issueId)
    .orderBy("received_at")
    .orderBy("id")
    .execute();
  return rows.map((r) => r.event_id);
}

async function issueIdOf(db: Db, projectId: number, eventId: string): Promise<number> {
  const row = await db.kysely
    .selectFrom("events")
    .select("issue_id")
    .where("project_id", "=", projectId)
    .where("event_id", "=", eventId)
    .executeTakeFirstOrThrow();
  return Number(row.issue_id);
}

async function setSettings(db: Db, projectId: number, settings: Record<string, unknown>): Promise<void> {
  await db.kysely
    .updateTable("projects")
    .set({ settings: JSON.stringify(settings) })
    .where("id", "=", projectId)
    .execute();
}

describe.each(await dialects())("retention on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("age: events past the project's retention go, except each issue's first and latest; counts stay", async () => {
    const p = await createProject(db, "age");
    const longer = await createProject(db, "age-long");
    await setSettings(db, longer, { retentionDays: 200 });
    // Issue A: all five events are old. Issue B: two old, two recent.
    const a = [];
    for (let i = 0; i < 5; i++) a.push(await send(db, p, "old issue", NOW - (100 - i) * DAY, `u${i}`));
    const b = [
      await send(db, p, "mixed issue", NOW - 120 * DAY),
      await send(db, p, "mixed issue", NOW - 95 * DAY),
      await send(db, p, "mixed issue", NOW - 10 * DAY),
      await send(db, p, "mixed issue", NOW - DAY),
    ];
    await send(db, longer, "kept by project setting", NOW - 150 * DAY);
    await send(db, longer, "kept by project setting", NOW - 149 * DAY);
    await send(db, longer, "kept by project setting", NOW - 148 * DAY);
    const issueA = await issueIdOf(db, p, a[0] as string);
    const issueB = await issueIdOf(db, p, b[0] as string);
    const beforeA = await getIssue(db, issueA);

    for (const eventId of [a[0], a[1]] as string[]) {
      await db.kysely
        .insertInto("attachments")
        .values({
          project_id: p,
          event_id: eventId,
          name: "log.txt",
          content_type: "text/plain",
          attachment_type: "event.attachment",
          size: 2,
          checksum: eventId,
          data: Buffer.from("hi"),
          created_at: NOW,
        })
        .execute();
    }

    const r = await runRetention(db, { now: NOW, defaults: { days: 90, eventCap: 1_000_000 }, batchSize: 2, yieldBetween: noPause });
    expect(r).toMatchObject({ expired: 3 + 1, evicted: 0 });
    // The deleted event's attachment went with it; the kept event's stayed.
    expect(
      (await db.kysely.selectFrom("attachments").select("event_id").where("project_id", "=", p).execute()).map((x) => x.event_id),
    ).toEqual([a[0]]);
    expect(await storedIds(db, issueA)).toEqual([a[0], a[4]]);
    expect(await storedIds(db, issueB)).toEqual([b[0], b[2], b[3]]);
    expect(await countEvents(db, { projectId: longer })).toBe(3);
    expect(await getIssue(db, issueA)).toEqual(beforeA);
    expect(await getIssue(db, issueA)).toMatchObject({ eventCount: 5, userCount: 5 });
    expect((await getLatestEvent(db, issueA))?.eventId).toBe(a[4]);
    // A second run finds nothing more.
    expect(
      await runRetention(db, { now: NOW, defaults: { days: 90, eventCap: 1_000_000 }, batchSize: 2, yieldBetween: noPause }),
    ).toMatchObject({ expired: 0 });
  });

  test("cap: the oldest events of the most repeated issues go first; first and latest kept; counts stay", async () => {
    const p = await createProject(db, "cap");
    await setSettings(db, p, { eventCap: 10 });
    const x = [];
    for (let i = 0; i < 12; i++) x.push(await send(db, p, "noisy", NOW - (50 - i) * 60_000));
    const y = [];
    for (let i = 0; i < 5; i++) y.push(await send(db, p, "medium", NOW - (40 - i) * 60_000));
    const z = await send(db, p, "rare", NOW - 30 * 60_000);
    const [ix, iy, iz] = [await issueIdOf(db, p, x[0] as string), await issueIdOf(db, p, y[0] as string), await issueIdOf(db, p, z)];

    const r = await runRetention(db, { now: NOW, defaults: { days: 90, eventCap: 1_000_000 }, batchSize: 3, yieldBetween: noPause });
    expect(r.evicted).toBe(8);
    expect(await countEvents(db, { projectId: p })).toBe(10);
    expect(await storedIds(db, ix)).toEqual([x[0], x[9], x[10], x[11]]);
    expect(await storedIds(db, iy)).toEqual(y);
    expect(await storedIds(db, iz)).toEqual([z]);
    expect(await getIssue(db, ix)).toMatchObject({ eventCount: 12, firstEventId: x[0], lastEventId: x[11] });
  });

  test("the maintenance loop runs retention soon after start and stops when aborted", async () => {
    const p = await createProject(db, "loop");
    await send(db, p, "loop issue", NOW - 100 * DAY);
    const middle = await send(db, p, "loop issue", NOW - 99 * DAY);
    await send(db, p, "loop issue", NOW - 98 * DAY);
    const controller = new AbortController();
    const retention = {
      days: 90,
      eventCap: 1_000_000,
      intervalMs: 600_000,
      firstRunDelayMs: 0,
      batchSize: 500,
      pauseMs: 0,
      artifactDays: 90,
      sweepIntervalMs: 600_000,
      monitorDays: 30,
    };
    const loop = runMaintenance({
      db,
      config: { retention, lifecycle: { ongoingAfterMs: 7 * DAY } },
      log: pino({ level: "silent" }),
      signal: controller.signal,
      now: () => NOW,
    });
    await eventually(async () => (await countEvents(db, { projectId: p })) === 2, 10_000, "retention to run");
    expect(await db.kysely.selectFrom("events").select("id").where("event_id", "=", middle).execute()).toEqual([]);
    controller.abort();
    await loop;
  });
});
