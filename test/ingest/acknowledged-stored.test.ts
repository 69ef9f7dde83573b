/**
 * Issue 14, "acknowledged, then lost": what ingest answers 200 for is stored — coerced and
 * trimmed with a note — or refused at ingest with a catalogued 4xx; never a 200 and then nothing.
 * Over real HTTP (the ingest handler) and the real digest, on SQLite and PostgreSQL: timestamps in
 * milliseconds, microseconds and nanoseconds; data bags nested 100,000 deep in every field the
 * normaliser reads; an unreadable event behind a valid header id; `/store/` bodies nested 10,000+
 * deep; and a fast-check property over generated odd events.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ERROR_CATALOGUE, type ErrorCode } from "../../src/core/errors";
import type { Db } from "../../src/storage/db";
import { listEventAttachments } from "../../src/storage/events/attachments";
import { getEvent } from "../../src/storage/events/events";
import { queueDepth } from "../../src/storage/queue/queue";
import { dialects, openTestDb } from "../helpers/test-db";
import { drain } from "../pipeline/helpers";
import { type JsonText, oddEventJson } from "./arbitraries";
import { type HandlerServer, type Reply, request, type SeededProject, seedProject, startHandler } from "./helpers";

const deepObject = (n: number): JsonText => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const deepArray = (n: number): JsonText => `${"[".repeat(n)}1${"]".repeat(n)}`;

let seq = 0;
const newId = () => `${Date.now().toString(16)}${(++seq).toString(16).padStart(8, "0")}`.padStart(32, "a");

function envelope(eventId: string, eventJson: JsonText, extraItems = ""): string {
  return `{"event_id":"${eventId}"}\n{"type":"event"}\n${eventJson}${extraItems}`;
}

function expectCatalogued(r: Reply, what: string): void {
  expect(r.status >= 400 && r.status < 500, `${what}: status ${r.status} ${r.text.slice(0, 200)}`).toBe(true);
  const code = r.json.code as ErrorCode;
  expect(ERROR_CATALOGUE[code]?.status, `${what}: ${r.text.slice(0, 200)}`).toBe(r.status);
}

type Notes = Array<{ type: string; path?: string; detail: string }>;
const notesOf = (e: Record<string, unknown>): Notes => (e.errata as { notes: Notes }).notes;

describe.each(await dialects())("acknowledged events are stored (%s)", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: HandlerServer;
  let p: SeededProject;
  let url: string;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    s = await startHandler(db);
    p = await seedProject(db, "odd");
    url = `/api/${p.projectId}/envelope/?sentry_key=${p.key}`;
  });
  afterAll(async () => {
    await s.close();
    await close();
  });

  async function sendAndRead(eventJson: JsonText, extraItems = "") {
    const id = newId();
    const r = await request(s.base, url, envelope(id, eventJson, extraItems));
    expect(r.status, r.text).toBe(200);
    await drain(db, Date.now());
    const stored = await getEvent(db, p.projectId, id);
    expect(stored, `event ${id} acknowledged but not stored`).toBeDefined();
    return { id, event: stored?.event as Record<string, unknown> };
  }

  test("timestamps in milliseconds, microseconds and nanoseconds are converted, with a note", async () => {
    const now = Date.now();
    for (const [scale, unit] of [
      [1e3, "milliseconds"],
      [1e6, "microseconds"],
      [1e9, "nanoseconds"],
    ] as const) {
      const stamp = Math.round((now / 1000 - 60) * scale);
      const { event } = await sendAndRead(`{"message":"t","timestamp":${stamp},"breadcrumbs":[{"timestamp":${stamp},"message":"c"}]}`);
      expect(Math.abs((event.timestamp as number) - (now / 1000 - 60))).toBeLessThan(2);
      expect(notesOf(event)).toContainEqual(
        expect.objectContaining({ type: "coerced", path: "timestamp", detail: expect.stringContaining(unit) }),
      );
      const crumb = (event.breadcrumbs as { values: Array<{ timestamp: number }> }).values[0];
      expect(Math.abs((crumb?.timestamp ?? 0) - (now / 1000 - 60))).toBeLessThan(2);
    }
    // Beyond any unit: the receive time, with a note.
    const { event } = await sendAndRead(`{"message":"t","timestamp":1e300}`);
    expect(Math.abs((event.timestamp as number) - Date.now() / 1000)).toBeLessThan(60);
    expect(notesOf(event)).toContainEqual(expect.objectContaining({ type: "invalid_timestamp" }));
  });

  test("data bags nested 60,000 deep are trimmed by depth and size, with a note; attachments kept", async () => {
    const deep = deepObject(60_000); // twice, plus 3 × 20,000-deep arrays: under the 1 MiB event limit
    const frame = `{"function":"f","vars":{"x":${deep}}}`;
    const json = [
      `{"message":"deep","breadcrumbs":[{"message":"c","data":${deep}}],`,
      `"exception":{"values":[{"type":"E","value":"v","mechanism":{"type":"x","data":${deepArray(20_000)}},"stacktrace":{"frames":[${frame}]}}]},`,
      `"user":{"id":"u1","data":${deepArray(20_000)}},"unknown_field":${deepArray(20_000)}}`,
    ].join("");
    const attachment = `\n{"type":"attachment","filename":"a.txt","length":5}\nhello`;
    const { id, event } = await sendAndRead(json, attachment);
    const paths = notesOf(event)
      .filter((n) => n.type === "trimmed")
      .map((n) => n.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "breadcrumbs.values.0.data",
        "exception.values.0.stacktrace.frames.0.vars",
        "exception.values.0.mechanism.data",
        "user.data",
        undefined, // the unknown field, by the whole-event depth bound
      ]),
    );
    // Stored JSON is bounded: it serialises without overflowing and stays small.
    expect(JSON.stringify(event).length).toBeLessThan(20_000);
    expect((event.user as { id: string }).id).toBe("u1");
    expect((await listEventAttachments(db, p.projectId, id)).map((a) => a.name)).toEqual(["a.txt"]);
  });

  test("an unreadable event behind a valid header id is stored empty with a note (its attachments too)", async () => {
    const { id, event } = await sendAndRead("{broken", `\n{"type":"attachment","filename":"b.txt","length":2}\nhi`);
    expect(notesOf(event)).toContainEqual(expect.objectContaining({ type: "invalid_event" }));
    expect((await listEventAttachments(db, p.projectId, id)).map((a) => a.name)).toEqual(["b.txt"]);
  });

  test("POST /store/ nested 10,000+ deep without an event_id: 200 and stored trimmed under that id", async () => {
    const store = `/api/${p.projectId}/store/?sentry_key=${p.key}`;
    for (const body of [`{"message":"deep","extra":{"a":${deepObject(50_000)}}}`, `{"message":"deep","x":${deepArray(10_500)} }`]) {
      const r = await request(s.base, store, body);
      expect(r.status, r.text.slice(0, 200)).toBe(200);
      const id = r.json.id as string;
      await drain(db, Date.now());
      const stored = await getEvent(db, p.projectId, id);
      expect(stored, `store event ${id}`).toBeDefined();
      expect(notesOf(stored?.event as Record<string, unknown>).some((n) => n.type === "trimmed")).toBe(true);
    }
  });

  test("property: every event id acknowledged for a generated odd event is readable afterwards", async () => {
    let acknowledged = 0;
    await fc.assert(
      fc.asyncProperty(oddEventJson, async (json) => {
        const id = newId();
        const r = await request(s.base, url, envelope(id, json));
        if (r.status !== 200) {
          expectCatalogued(r, json.slice(0, 200));
          return;
        }
        acknowledged += 1;
        await drain(db, Date.now());
        expect(await getEvent(db, p.projectId, id), `acknowledged ${id} but not stored: ${json.slice(0, 300)}`).toBeDefined();
      }),
      { numRuns: dialect === "sqlite" ? 40 : 20 },
    );
    expect(acknowledged).toBeGreaterThan(0);
    expect(await queueDepth(db)).toBe(0);
  });
});
