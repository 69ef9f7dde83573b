/**
 * Every envelope item type through the digest worker, on both databases: what is stored
 * (events, attachments, feedback, release-health aggregates), what is only counted, and that every
 * item ends with exactly one outcome in the counters.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hourStart } from "../../src/core/outcomes";
import { digestBatch } from "../../src/pipeline/digest-batch";
import type { Db } from "../../src/storage/db";
import { getAttachment, listEventAttachments } from "../../src/storage/events/attachments";
import { countEvents, getEvent } from "../../src/storage/events/events";
import { listOutcomes, type OutcomeRow } from "../../src/storage/events/outcomes";
import { listFeedback } from "../../src/storage/feedback/feedback";
import { claimBatch, enqueueMany, type QueueInsert, queueDepth } from "../../src/storage/queue/queue";
import { releaseCounts } from "../../src/storage/releases/reads";
import { listSessionAggregates } from "../../src/storage/releases/sessions";
import { dialects, openTestDb } from "../helpers/test-db";
import { createProject, deps, drain, hexId } from "../pipeline/helpers";

const NOW = Date.UTC(2026, 10, 22, 12, 30, 0);
const HOUR = hourStart(NOW);
const KEY_ID = 7;
const iso = (ms: number) => new Date(ms).toISOString();

function row(projectId: number, body: Buffer | string, receivedAt = NOW): QueueInsert {
  return {
    projectId,
    keyId: KEY_ID,
    receivedAt,
    clientIp: "198.51.100.9",
    kind: "envelope",
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  };
}

/** An envelope from [headers, payload] pairs; payloads with a `length` keep their exact bytes. */
function envelope(headers: Record<string, unknown>, ...items: Array<[Record<string, unknown>, Buffer | string | object]>): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(headers))];
  for (const [h, p] of items) {
    const payload = Buffer.isBuffer(p) ? p : Buffer.from(typeof p === "string" ? p : JSON.stringify(p));
    parts.push(Buffer.from(`\n${JSON.stringify({ ...h, length: payload.length })}\n`), payload);
  }
  return Buffer.concat(parts);
}

/** Outcome counts of a project as "category outcome reason" → quantity. */
async function outcomes(db: Db, projectId: number): Promise<Record<string, number>> {
  const rows: OutcomeRow[] = await listOutcomes(db, { projectIds: [projectId], from: 0, to: NOW + 10 * 86_400_000 });
  const out: Record<string, number> = {};
  for (const r of rows) {
    const k = `${r.category} ${r.outcome}${r.reason ? ` ${r.reason}` : ""}`;
    out[k] = (out[k] ?? 0) + r.quantity;
  }
  return out;
}

describe.each(await dialects())("envelope items through the digest on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("one envelope of every kind: each item stored or counted, exactly one outcome each", async () => {
    const projectId = await createProject(db, "every");
    const id = hexId("every-event");
    const logBytes = Buffer.from("line 1\nline 2\n\u0000binary\xff", "latin1");
    const body = envelope(
      { event_id: id, sent_at: iso(NOW) },
      [{ type: "event" }, { message: "with everything", level: "error", release: "app@1" }],
      [{ type: "attachment", filename: "app.log", content_type: "text/plain" }, logBytes],
      [{ type: "attachment", filename: "empty.bin" }, Buffer.alloc(0)],
      [{ type: "user_report" }, { event_id: id, name: "Ada", email: "ada@example.com", comments: "It broke when I clicked save" }],
      [
        { type: "client_report" },
        {
          timestamp: NOW / 1000,
          discarded_events: [
            { reason: "sample_rate", category: "transaction", quantity: 4 },
            { reason: "before_send", category: "error", quantity: 1 },
          ],
        },
      ],
      [
        { type: "session" },
        { sid: "s-every", init: true, started: iso(NOW), status: "ok", errors: 1, attrs: { release: "app@1", environment: "prod" } },
      ],
      [
        { type: "transaction" },
        {
          type: "transaction",
          transaction: "GET /",
          start_timestamp: NOW / 1000,
          timestamp: NOW / 1000 + 0.1,
          contexts: { trace: { trace_id: "a".repeat(32), span_id: "b".repeat(16) } },
          spans: [],
        },
      ],
      [{ type: "replay_video" }, Buffer.from("{}\n\x78\x9c")],
      [{ type: "brand_new_type" }, "?"],
    );
    await enqueueMany(db, [row(projectId, body)]);
    expect(await drain(db, NOW)).toEqual({ events: 1, duplicates: 0, skipped: 8, failed: 0 });
    expect(await queueDepth(db)).toBe(0);

    expect((await getEvent(db, projectId, id))?.title).toBe("with everything");
    const atts = await listEventAttachments(db, projectId, id);
    expect(atts.map((a) => [a.name, a.contentType, a.attachmentType, a.size])).toEqual([
      ["app.log", "text/plain", "event.attachment", logBytes.length],
      ["empty.bin", "application/octet-stream", "event.attachment", 0],
    ]);
    const file = await getAttachment(db, projectId, id, atts[0]?.id ?? -1);
    expect(file?.data.equals(logBytes)).toBe(true);
    expect(await getAttachment(db, projectId + 1, id, atts[0]?.id ?? -1)).toBeUndefined();

    expect(await listFeedback(db, { projectIds: [projectId] })).toMatchObject([
      {
        feedbackId: id,
        eventId: id,
        name: "Ada",
        email: "ada@example.com",
        comments: "It broke when I clicked save",
        source: "user_report",
      },
    ]);
    expect(await listSessionAggregates(db, { projectIds: [projectId], from: 0, to: NOW * 2 })).toMatchObject([
      { release: "app@1", environment: "prod", hour: HOUR, total: 1, ok: 0, errored: 1, crashed: 0 },
    ]);
    expect(await outcomes(db, projectId)).toEqual({
      "error accepted": 1,
      "attachment accepted": 2,
      "user_report_v2 accepted": 1,
      "internal accepted": 1,
      "session accepted": 1,
      "transaction client_discard sample_rate": 4,
      "error client_discard before_send": 1,
      "transaction accepted": 1,
      "replay filtered unsupported_item": 1,
      "default filtered unsupported_item": 1,
    });
    const rows = await listOutcomes(db, { projectIds: [projectId], from: HOUR, to: HOUR + 1 });
    expect(rows.every((r) => r.keyId === KEY_ID && r.hour === HOUR)).toBe(true);
  });

  test("duplicates: the event is stored once and counted filtered(duplicate); re-delivered attachments stored once", async () => {
    const projectId = await createProject(db, "dupe-items");
    const id = hexId("dupe-items");
    const body = envelope(
      { event_id: id },
      [{ type: "event" }, { message: "twice" }],
      [{ type: "attachment", filename: "a.txt" }, "same bytes"],
    );
    await enqueueMany(db, [row(projectId, body), row(projectId, body)]);
    expect(await drain(db, NOW)).toMatchObject({ events: 1, duplicates: 1 });
    // A worker that claimed the same rows and finishes late (lease expired): nothing stored twice.
    await enqueueMany(db, [row(projectId, body)]);
    const dead = await claimBatch(db, NOW, 10, 1000);
    const again = await claimBatch(db, NOW + 1000, 10, 1000);
    await digestBatch(db, again, deps(NOW + 1000));
    await digestBatch(db, dead, deps(NOW + 1000));
    expect(await countEvents(db, { projectId })).toBe(1);
    expect(await listEventAttachments(db, projectId, id)).toHaveLength(1);
    expect(await outcomes(db, projectId)).toMatchObject({ "error accepted": 1, "error filtered duplicate": 3, "attachment accepted": 4 });
  });

  test("feedback items (new style) link to the event they name; a repeated user report replaces the first", async () => {
    const projectId = await createProject(db, "feedback");
    const errorId = hexId("fb-error");
    const fbId = hexId("fb-feedback");
    await enqueueMany(db, [
      row(
        projectId,
        envelope({ event_id: fbId }, [
          { type: "feedback" },
          {
            type: "feedback",
            contexts: {
              feedback: {
                message: "Checkout is slow",
                contact_email: "bo@example.com",
                name: "Bo",
                url: "https://shop.example/cart",
                associated_event_id: errorId,
              },
            },
          },
        ]),
      ),
      row(
        projectId,
        envelope({ event_id: errorId }, [
          { type: "user_report" },
          { event_id: errorId, name: "Cy", email: "cy@example.com", comments: "first" },
        ]),
      ),
      row(
        projectId,
        envelope({ event_id: errorId }, [
          { type: "user_report" },
          { event_id: errorId, name: "Cy", email: "cy@example.com", comments: "second" },
        ]),
      ),
    ]);
    await drain(db, NOW);
    const list = await listFeedback(db, { projectIds: [projectId] });
    // Newest first (same receive time: by id); the second report updated the first one's row.
    expect(list.map((f) => [f.source, f.feedbackId, f.eventId, f.name, f.email, f.comments, f.url])).toEqual([
      ["user_report", errorId, errorId, "Cy", "cy@example.com", "second", null],
      ["feedback", fbId, errorId, "Bo", "bo@example.com", "Checkout is slow", "https://shop.example/cart"],
    ]);
    expect(await listFeedback(db, { projectIds: [projectId], eventId: errorId })).toHaveLength(2);
    expect(await outcomes(db, projectId)).toEqual({ "feedback accepted": 1, "user_report_v2 accepted": 2 });
  });

  test("release health: sessions across batches, re-sent updates, aggregates, distinct users, old data", async () => {
    const projectId = await createProject(db, "health");
    const s = (sid: string, over: Record<string, unknown>) =>
      row(
        projectId,
        envelope({}, [{ type: "session" }, { sid, started: iso(NOW - 60_000), attrs: { release: "web@3", environment: "prod" }, ...over }]),
      );
    const init = s("a", { init: true, status: "ok", did: "user-1" });
    await enqueueMany(db, [init, init, s("b", { init: true, did: "user-1" }), s("c", { init: true, did: "user-2" })]);
    await drain(db, NOW);
    await enqueueMany(db, [
      s("a", { init: false, status: "exited", errors: 0 }),
      // SDKs repeat the user's `did` on every update: the crash marks user-1 crashed.
      s("b", { init: false, status: "crashed", errors: 1, did: "user-1" }),
      s("c", { init: false, errors: 2 }),
      s("c", { init: false, status: "exited", errors: 2 }),
      s("d", { init: true, started: iso(NOW - 6 * 86_400_000) }),
      row(projectId, envelope({}, [{ type: "session" }, "{not json"])),
      row(projectId, envelope({}, [{ type: "session" }, { sid: "e", started: iso(NOW) }])),
      row(
        projectId,
        envelope({}, [
          { type: "sessions" },
          {
            aggregates: [{ started: iso(NOW - 60_000), exited: 5, errored: 1, did: "user-3" }],
            attrs: { release: "web@3", environment: "prod" },
          },
        ]),
      ),
    ]);
    await drain(db, NOW);
    const rows = await listSessionAggregates(db, { projectIds: [projectId], from: 0, to: NOW * 2 });
    expect(rows).toEqual([
      {
        projectId,
        release: "web@3",
        environment: "prod",
        hour: HOUR,
        total: 9,
        ok: 6,
        errored: 2,
        unhandled: 0,
        abnormal: 0,
        crashed: 1,
        users: 3,
      },
    ]);
    // Crash-free users: user-1 crashed in session b (its other session a exited cleanly).
    const counts = (await releaseCounts(db, { orgId: 0, projectIds: [projectId], versions: ["web@3"] })).get("web@3");
    expect(counts).toMatchObject({ users: 3, crashedUsers: 1 });
    expect(await outcomes(db, projectId)).toEqual({
      "session accepted": 9,
      "session filtered too_old": 1,
      "session invalid invalid_json": 1,
      "session invalid missing_release": 1,
    });
  });

  test("CSP reports (raw_security) become security events; unusable payloads are counted invalid (an acknowledged event is stored empty)", async () => {
    const projectId = await createProject(db, "csp-items");
    const report = {
      "csp-report": { "document-uri": "https://a.example/", "effective-directive": "img-src", "blocked-uri": "https://t.example/p.gif" },
    };
    const ids = [hexId("csp1"), hexId("csp2"), hexId("bad-event")];
    await enqueueMany(db, [
      row(projectId, envelope({ event_id: ids[0] }, [{ type: "raw_security", sentry_release: "r1", sentry_environment: "prod" }, report])),
      row(projectId, envelope({ event_id: ids[1] }, [{ type: "raw_security" }, report])),
      row(projectId, envelope({ event_id: ids[2] }, [{ type: "event" }, "{broken"], [{ type: "user_report" }, "[]"])),
      row(projectId, "not an envelope at all"),
    ]);
    expect(await drain(db, NOW)).toEqual({ events: 3, duplicates: 0, skipped: 1, failed: 1 });
    const a = await getEvent(db, projectId, ids[0] as string);
    const b = await getEvent(db, projectId, ids[1] as string);
    expect(a).toMatchObject({ title: "Blocked 'image' from 't.example'", release: "r1", environment: "prod" });
    expect(a?.issueId).toBe(b?.issueId);
    expect(await outcomes(db, projectId)).toEqual({
      "security accepted": 2,
      "error accepted": 1,
      "user_report_v2 invalid invalid_json": 1,
      "default invalid invalid_envelope": 1,
    });
  });
});
