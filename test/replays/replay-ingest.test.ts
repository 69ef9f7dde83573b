/**
 * Session replay ingest and storage (issue 40) on both databases, over real HTTP into the real
 * ingest handler, then through the real digest into the blob store (files under DATA_DIR/blobs on
 * SQLite, the blobs table on PostgreSQL): the SDK's own recorded envelope, segments out of order
 * and re-sent, scrubbing, the links between errors and replays, and every refusal the issue names —
 * each answered with its catalogue code and leaving nothing queued, stored or written.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { digestBatch } from "../../src/pipeline/digest-batch";
import { expireReplays } from "../../src/pipeline/replays/replay-retention";
import { type BlobStore, createBlobStore } from "../../src/storage/blobs/blob-store";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { listInbox } from "../../src/storage/feedback/inbox";
import { invalidate } from "../../src/storage/orgs/key-cache";
import { deleteProjectAndData } from "../../src/storage/orgs/project-delete";
import { readProjectSettings, writeProjectSettings } from "../../src/storage/orgs/projects";
import { claimBatch, queueDepth } from "../../src/storage/queue/queue";
import { getReplay, listSegments, projectReplayPrefix } from "../../src/storage/replays/replays";
import { SDK_CAPTURES } from "../helpers/ingest-fixtures";
import {
  rageClick,
  recordingPayload,
  replayEnvelope,
  replayEvent,
  replayIdOf,
  segmentEnvelope,
  segmentEvents,
} from "../helpers/replay-envelopes";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";
import {
  type HandlerServer,
  outcomeCounts,
  type Reply,
  request,
  type SeededProject,
  seedProject,
  startHandler,
  until,
} from "../ingest/helpers";
import { deps as baseDeps } from "../pipeline/helpers";

const KiB = 1024;
const MiB = 1024 * KiB;
const NOW = Date.now();

function send(h: HandlerServer, key: string, projectId: number, body: Buffer): Promise<Reply> {
  return request(h.base, `/api/${projectId}/envelope/`, body, {
    headers: { "content-type": "application/x-sentry-envelope", "x-sentry-auth": `Sentry sentry_version=7, sentry_key=${key}` },
  });
}

/** Random hex: incompressible padding, so a segment's stored size is what the test asks for. */
function noise(bytes: number): string {
  let s = "";
  while (s.length < bytes) s += Math.random().toString(16).slice(2);
  return s.slice(0, bytes);
}

describe.each(await dialects())("session replay ingest and storage on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let h: HandlerServer;
  let blobs: BlobStore;
  let p: SeededProject;
  let other: SeededProject;
  const dataDir = tempDir("errata-replay-");

  /** Digests the queue with the replay deps the worker gives the digest. */
  async function drain(): Promise<void> {
    for (;;) {
      const items = await claimBatch(db, Date.now(), 50, 60_000);
      if (items.length === 0) return;
      await digestBatch(db, items, { ...baseDeps(Date.now()), replays: { blobs, config: h.config.replays } });
    }
  }

  /** Ingest counts its refusals in memory and writes them shortly after: wait for them. */
  async function outcomesReach(projectId: number, expected: Record<string, number>): Promise<void> {
    await until(
      async () => {
        const got = await outcomeCounts(db, projectId);
        return Object.entries(expected).every(([k, v]) => got[k] === v);
      },
      `outcomes ${JSON.stringify(expected)}`,
    );
  }

  async function blobKeys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    for await (const b of blobs.list(prefix)) out.push(b.key);
    return out;
  }

  async function segmentText(replayId: string, segmentId: number): Promise<string> {
    const [seg] = (await listSegments(db, replayId, { offset: 0, limit: 1000 })).filter((s) => s.segmentId === segmentId);
    expect(seg, `segment ${segmentId}`).toBeDefined();
    const bytes = await blobs.get(seg?.blobKey ?? "");
    return zlib.inflateSync(bytes ?? Buffer.alloc(0)).toString("utf8");
  }

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    // Small caps so the refusals are cheap to reach: 1 MiB inflated per segment, 48 KiB per replay.
    h = await startHandler(db, { DATA_DIR: dataDir, REPLAY_SEGMENT_MAX_INFLATED: String(MiB), REPLAY_MAX_SIZE: String(48 * KiB) });
    blobs = createBlobStore(db, dataDir);
    p = await seedProject(db, "shop");
    other = await seedProject(db, "admin");
  });
  afterAll(async () => {
    await h?.close();
    await close?.();
  });

  test("the SDK's own buffer-mode envelope: stored, with its error, URL, browser and every rrweb event", async () => {
    const body = fs.readFileSync(path.join(SDK_CAPTURES, "browser-sdk-11-replay-buffer.envelope"));
    const replayId = JSON.parse(body.subarray(0, body.indexOf(10)).toString()).event_id as string;
    const r = await send(h, p.key, p.projectId, body);
    expect(r.status, r.text).toBe(200);
    expect(r.headers["x-sentry-rate-limits"]).toBeUndefined();
    await drain();
    const replay = await getReplay(db, replayId);
    expect(replay).toMatchObject({
      project_id: p.projectId,
      replay_type: "buffer",
      count_segments: 1,
      count_errors: 1,
      release: "ctl@1.0.0",
      environment: "ctl",
      browser_name: expect.stringMatching(/Chrome/),
      os_name: "Linux",
      sdk_name: "sentry.javascript.browser",
    });
    expect(JSON.parse(replay?.urls ?? "[]")[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const events = JSON.parse(await segmentText(replayId, 0)) as Array<{ type: number }>;
    expect(events).toHaveLength(35);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining([2, 3, 4, 5]));
    if (dialect === "sqlite") expect(fs.existsSync(path.join(dataDir, "blobs", "replays", String(p.projectId), replayId, "0"))).toBe(true);
    expect(await outcomeCounts(db, p.projectId)).toMatchObject({ "replay accepted": 1 });
  });

  test("segments out of order, one re-sent: each stored once, times and counts folded, rage and dead clicks counted", async () => {
    const replayId = replayIdOf(`order-${dialect}`);
    const t0 = NOW - 60_000;
    const seg = (n: number, extra: unknown[] = []) =>
      segmentEnvelope(replayId, n, t0 + n * 5000, { start: t0, urls: [`https://shop.example/p${n}`], extra });
    for (const n of [2, 0, 1, 1]) {
      const r = await send(h, p.key, p.projectId, seg(n, n === 2 ? [rageClick(t0 + 10_500)] : []));
      expect(r.status, r.text).toBe(200);
    }
    await drain();
    const replay = await getReplay(db, replayId);
    expect(replay).toMatchObject({ count_segments: 3, count_clicks: 3, count_dead_clicks: 1, count_rage_clicks: 1, started_at: t0 });
    expect(Number(replay?.finished_at)).toBe(t0 + 10_000 + 5000);
    expect(JSON.parse(replay?.urls ?? "[]")).toEqual(
      expect.arrayContaining(["https://shop.example/p0", "https://shop.example/p1", "https://shop.example/p2"]),
    );
    expect((await listSegments(db, replayId, { offset: 0, limit: 10 })).map((s) => s.segmentId)).toEqual([0, 1, 2]);
    expect(await outcomeCounts(db, p.projectId)).toMatchObject({ "replay filtered duplicate": 1 });
  });

  test("the project's scrubbing applies to what the recording carries in the clear; masked text stays masked", async () => {
    const replayId = replayIdOf(`scrub-${dialect}`);
    const r = await send(
      h,
      p.key,
      p.projectId,
      segmentEnvelope(replayId, 0, NOW - 30_000, { user: { id: "42", ip_address: "203.0.113.9", email: "a@b.example" } }),
    );
    expect(r.status, r.text).toBe(200);
    await drain();
    const text = await segmentText(replayId, 0);
    expect(text).not.toContain("s3cr3t-value");
    expect(text).not.toContain("abc.def.ghi");
    expect(text).not.toContain("hunter2");
    expect(text).toContain("[Filtered]");
    expect(text).toContain("******** ****");
    expect(await getReplay(db, replayId)).toMatchObject({ user_id: "42", user_email: "a@b.example" });
  });

  test("an error event with the replay's id links both ways: the replay counts it, the link names its issue", async () => {
    const replayId = replayIdOf(`link-${dialect}`);
    expect((await send(h, p.key, p.projectId, segmentEnvelope(replayId, 0, NOW - 20_000))).status).toBe(200);
    const eventId = replayIdOf(`link-event-${dialect}`);
    const event = {
      event_id: eventId,
      timestamp: (NOW - 15_000) / 1000,
      platform: "javascript",
      exception: { values: [{ type: "TypeError", value: "boom in checkout" }] },
      tags: { replayId },
    };
    const env = Buffer.from(`${JSON.stringify({ event_id: eventId })}\n{"type":"event"}\n${JSON.stringify(event)}`);
    expect((await send(h, p.key, p.projectId, env)).status).toBe(200);
    await drain();
    expect(await getReplay(db, replayId)).toMatchObject({ count_errors: 1 });
    const link = await db.kysely.selectFrom("replay_errors").selectAll().where("replay_id", "=", replayId).executeTakeFirst();
    expect(link).toMatchObject({ event_id: eventId });
    expect(Number(link?.issue_id)).toBeGreaterThan(0);
  });

  test("feedback from the SDK's widget keeps the replay it names: the inbox links it", async () => {
    const replayId = replayIdOf(`feedback-${dialect}`);
    const feedbackId = replayIdOf(`feedback-event-${dialect}`);
    const feedback = {
      event_id: feedbackId,
      timestamp: NOW / 1000,
      platform: "javascript",
      contexts: {
        feedback: {
          message: "The pay button does nothing",
          contact_email: "a@b.example",
          replay_id: replayId,
          url: "https://shop.example/checkout",
        },
      },
    };
    const env = Buffer.from(`${JSON.stringify({ event_id: feedbackId })}\n{"type":"feedback"}\n${JSON.stringify(feedback)}`);
    expect((await send(h, p.key, p.projectId, env)).status).toBe(200);
    await drain();
    const [row] = await listInbox(db, { projectIds: [p.projectId], limit: 10 });
    expect(row).toMatchObject({ comments: "The pay button does nothing", replayId });
  });

  test("behind a backlog of errors, replay-only rows wait a moment (twice at most), then are stored", async () => {
    const replayId = replayIdOf(`deferred-${dialect}`);
    expect((await send(h, p.key, p.projectId, segmentEnvelope(replayId, 0, NOW - 8000))).status).toBe(200);
    const eventId = replayIdOf(`deferred-event-${dialect}`);
    expect(
      (await send(h, p.key, p.projectId, Buffer.from(`{"event_id":"${eventId}"}\n{"type":"event"}\n{"message":"first"}`))).status,
    ).toBe(200);
    const digest = (items: Awaited<ReturnType<typeof claimBatch>>, at: number) =>
      digestBatch(db, items, { ...baseDeps(at), replays: { blobs, config: h.config.replays }, deferReplays: true });
    let at = Date.now();
    const first = await claimBatch(db, at, 50, 60_000);
    expect((await digest(first, at)).events).toBe(1);
    expect(await getReplay(db, replayId)).toBeUndefined();
    expect(await queueDepth(db)).toBe(1);
    // Deferred again on its second claim, stored on its third whatever the backlog.
    for (const expected of [undefined, 1]) {
      at += 60_000;
      await digest(await claimBatch(db, at, 50, 60_000), at);
      expect((await getReplay(db, replayId))?.count_segments, `after a claim at +${at - NOW}`).toBe(expected);
    }
    expect(await queueDepth(db)).toBe(0);
  });

  test("bad input: each refusal has its catalogue code and leaves nothing queued, stored or written", async () => {
    const known = replayIdOf(`known-${dialect}`);
    expect((await send(h, p.key, p.projectId, segmentEnvelope(known, 0, NOW - 10_000))).status).toBe(200);
    await drain();
    const before = await getReplay(db, known);
    const events = segmentEvents({ segmentId: 1, start: NOW - 5000 });
    const ev = (id: string, n = 1) => replayEvent({ replayId: id, segmentId: n, start: NOW - 10_000, end: NOW });
    // At least 10:1 and past the 1 MiB cap.
    const bombJson = Buffer.from(
      JSON.stringify(
        Array.from({ length: 30_000 }, (_, i) => ({ type: 3, timestamp: i, data: { source: 1, id: i % 97, text: "masked" } })),
      ),
    );
    const bomb = zlib.deflateSync(bombJson);
    expect(bombJson.length).toBeGreaterThan(MiB);
    expect(bombJson.length / bomb.length).toBeGreaterThanOrEqual(10);
    const big = (seg: number) => recordingPayload(seg, [{ type: 3, timestamp: NOW, data: { source: 0, texts: [noise(70 * KiB)] } }]);
    const cases: Array<[string, Buffer, number, string]> = [
      [
        "recording without a header",
        replayEnvelope(known, ev(known), zlib.deflateSync(JSON.stringify(events))),
        400,
        "replay_invalid_recording",
      ],
      [
        "invalid zlib",
        replayEnvelope(known, ev(known), Buffer.concat([Buffer.from('{"segment_id":1}\n'), Buffer.from([0x78, 0x9c, 1, 2, 3, 4, 5])])),
        400,
        "replay_invalid_recording",
      ],
      [
        "a bomb past the inflate cap",
        replayEnvelope(known, ev(known), Buffer.concat([Buffer.from('{"segment_id":1}\n'), bomb])),
        413,
        "replay_segment_too_large",
      ],
      [
        "a segment of an unknown replay",
        replayEnvelope(replayIdOf(`nobody-${dialect}`), null, recordingPayload(1, events)),
        404,
        "replay_unknown",
      ],
    ];
    for (const [what, body, status, code] of cases) {
      const r = await send(h, p.key, p.projectId, body);
      expect(r.status, what).toBe(status);
      expect(r.json.code, what).toBe(code);
      expect(await queueDepth(db), what).toBe(0);
    }
    // Another project's key may not add to this project's replay.
    const foreign = await send(h, other.key, other.projectId, replayEnvelope(known, ev(known), recordingPayload(1, events)));
    expect([foreign.status, foreign.json.code]).toEqual([403, "replay_foreign"]);
    // Past the replay's size cap (48 KiB stored): ~35 KiB segments (hex noise deflates to half), the second one is refused.
    const capped = replayIdOf(`capped-${dialect}`);
    expect((await send(h, p.key, p.projectId, replayEnvelope(capped, ev(capped, 0), big(0)))).status).toBe(200);
    const over = await send(h, p.key, p.projectId, replayEnvelope(capped, ev(capped, 1), big(1)));
    expect([over.status, over.json.code]).toEqual([413, "replay_too_large"]);
    await drain();
    expect(await getReplay(db, known)).toEqual(before);
    expect(await getReplay(db, replayIdOf(`nobody-${dialect}`))).toBeUndefined();
    expect(await getReplay(db, capped)).toMatchObject({ count_segments: 1 });
    expect(await blobKeys(projectReplayPrefix(other.projectId))).toEqual([]);
    expect(await blobKeys(`replays/${p.projectId}/${known}/`)).toEqual([`replays/${p.projectId}/${known}/0`]);
    await outcomesReach(p.projectId, {
      "replay invalid replay_invalid_recording": 2,
      "replay invalid replay_segment_too_large": 1,
      "replay invalid replay_unknown": 1,
      "replay invalid replay_too_large": 1,
    });
  });

  test("a project that turned replays off: answered 200 and told to stop, nothing stored; replay_video is not kept", async () => {
    const off = await seedProject(db, "quiet");
    await writeTx(db, async (tx) =>
      writeProjectSettings(tx, off.projectId, { ...(await readProjectSettings(tx, off.projectId)), replays: { enabled: false } }),
    );
    invalidate();
    const replayId = replayIdOf(`off-${dialect}`);
    const r = await send(h, off.key, off.projectId, segmentEnvelope(replayId, 0, NOW - 5000));
    expect(r.status).toBe(200);
    expect(r.headers["x-sentry-rate-limits"]).toContain(":replay:project:replays_disabled");
    expect(await queueDepth(db)).toBe(0);
    // A mobile replay's video segment: 200, counted, no limit on the replay category browsers share.
    const video = replayIdOf(`video-${dialect}`);
    const env = Buffer.concat([
      replayEnvelope(video, replayEvent({ replayId: video, segmentId: 0, start: NOW - 5000, end: NOW }), null),
      Buffer.from(`\n{"type":"replay_video","length":4}\nabcd`),
    ]);
    const v = await send(h, p.key, p.projectId, env);
    expect(v.status).toBe(200);
    expect(v.headers["x-sentry-rate-limits"]).toBeUndefined();
    await drain();
    expect(await getReplay(db, replayId)).toBeUndefined();
    expect(await getReplay(db, video)).toBeUndefined();
    await outcomesReach(off.projectId, { "replay filtered replays_disabled": 1 });
  });

  test("replays have their own per-key rate limit: refused with a replay limit while errors still flow", async () => {
    const limited = await startHandler(db, { DATA_DIR: dataDir, RATE_LIMIT_KEY_REPLAYS: "2", RATE_LIMIT_KEY_EVENTS: "100" });
    try {
      const id = replayIdOf(`limited-${dialect}`);
      for (const n of [0, 1]) expect((await send(limited, p.key2, p.projectId, segmentEnvelope(id, n, NOW - 9000))).status).toBe(200);
      const third = await send(limited, p.key2, p.projectId, segmentEnvelope(id, 2, NOW - 9000));
      expect(third.status).toBe(429);
      expect(third.headers["x-sentry-rate-limits"]).toMatch(/^\d+:replay:key:key_quota$/);
      const eventId = replayIdOf(`limited-event-${dialect}`);
      const err = await send(
        limited,
        p.key2,
        p.projectId,
        Buffer.from(`{"event_id":"${eventId}"}\n{"type":"event"}\n{"message":"still here"}`),
      );
      expect(err.status).toBe(200);
    } finally {
      await limited.close();
      await drain();
    }
  });

  test("retention and deletion: expired replays go with their blobs; a deleted project's replays and files go", async () => {
    const old = replayIdOf(`old-${dialect}`);
    expect((await send(h, p.key, p.projectId, segmentEnvelope(old, 0, NOW - 5000))).status).toBe(200);
    await drain();
    await db.kysely
      .updateTable("replays")
      .set({ received_at: NOW - 40 * 86_400_000 })
      .where("replay_id", "=", old)
      .execute();
    // An orphan: a blob whose replay never got a row, written over an hour ago.
    const orphan = `replays/${p.projectId}/${replayIdOf(`orphan-${dialect}`)}/0`;
    await blobs.put(orphan, Buffer.from("x"));
    const hourAgo = (NOW - 2 * 3600_000) / 1000;
    if (dialect === "sqlite") fs.utimesSync(path.join(dataDir, "blobs", ...orphan.split("/")), hourAgo, hourAgo);
    else
      await db.kysely
        .updateTable("blobs")
        .set({ created_at: NOW - 2 * 3600_000 })
        .where("key", "=", orphan)
        .execute();
    const res = await expireReplays(db, blobs, { now: NOW, days: 30, batchSize: 100, pause: async () => {}, sweepNow: true });
    expect(res.replays).toBeGreaterThanOrEqual(1);
    expect(res.orphans).toBe(1);
    expect(await getReplay(db, old)).toBeUndefined();
    expect(await blobKeys(`replays/${p.projectId}/${old}/`)).toEqual([]);
    expect(await blobs.get(orphan)).toBeUndefined();

    const doomed = await seedProject(db, "doomed");
    const id = replayIdOf(`doomed-${dialect}`);
    expect((await send(h, doomed.key, doomed.projectId, segmentEnvelope(id, 0, NOW - 5000))).status).toBe(200);
    await drain();
    expect(await blobKeys(projectReplayPrefix(doomed.projectId))).toHaveLength(1);
    await writeTx(db, (tx) => deleteProjectAndData(tx, doomed.projectId));
    if (blobs.kind === "files") await blobs.deletePrefix(projectReplayPrefix(doomed.projectId));
    expect(await getReplay(db, id)).toBeUndefined();
    expect(await blobKeys(projectReplayPrefix(doomed.projectId))).toEqual([]);
  });
});
