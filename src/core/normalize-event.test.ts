import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { capturedBody, corpusFiles, corpusJson } from "../../test/pipeline/corpus";
import { parseEnvelope, parseJsonObject } from "../ingest/parse-envelope";
import { DEFAULT_TRIM_LIMITS, type NormalizeContext } from "./event";
import { normalizeEvent } from "./normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalizeEvent over the whole corpus", () => {
  test.each(corpusFiles())("%s normalises without throwing", (file) => {
    const e = normalizeEvent(corpusJson(file), ctx);
    expect(e.event_id).toMatch(/^[0-9a-f]{32}$/);
    expect(typeof e.timestamp).toBe("number");
    expect(["fatal", "error", "warning", "info", "debug"]).toContain(e.level);
    expect(e.platform.length).toBeGreaterThan(0);
    expect(Array.isArray(e.errata.notes)).toBe(true);
    if (e.exception) for (const x of e.exception.values) expect(x.type !== undefined || x.value !== undefined).toBe(true);
    if (e.tags) for (const t of e.tags) expect(t.every((s) => typeof s === "string")).toBe(true);
    // It must survive a JSON round trip (it is stored as JSON).
    expect(() => JSON.stringify(e)).not.toThrow();
  });
});

describe("normalizeEvent: shapes", () => {
  test("non-object input becomes a minimal event with a processing note", () => {
    for (const raw of [null, 42, "str", [1, 2]]) {
      const e = normalizeEvent(raw, { ...ctx, eventId: ID });
      expect(e.event_id).toBe(ID);
      expect(e.level).toBe("error");
      expect(e.platform).toBe("other");
      expect(e.timestamp).toBe(NOW / 1000);
      expect(e.errata.notes[0]?.type).toBe("invalid_event");
    }
  });

  test("the node SDK envelope (captured) normalises as expected", () => {
    const env = parseEnvelope(capturedBody("node-sdk-envelope.txt", 8), {
      maxHeaderLine: 8192,
      maxEventSize: 1 << 20,
      maxAttachmentSize: 1 << 20,
    });
    const item = env.items.find((i) => i.headers.type === "event");
    const raw = parseJsonObject(item?.payload ?? new Uint8Array(), "event");
    const e = normalizeEvent(raw, { ...ctx, eventId: String(env.headers.event_id) });
    expect(normalizeEvent({}, { ...ctx, eventId: undefined }).errata.notes[0]?.type).toBe("invalid_event_id");
    expect(e.event_id).toBe("189d194c503a4ca092f4c473a1f6bbc9");
    expect(e.timestamp).toBe(1795344235.444);
    expect(e.errata.notes).toEqual([]);
    expect(e.platform).toBe("node");
    expect(e.release).toBe("stackcheck@1.0.0");
    const frames = e.exception?.values[0]?.stacktrace?.frames ?? [];
    const last = frames[frames.length - 1];
    expect(last).toMatchObject({
      filename: "/home/user/app1/sentry/node-client.mjs",
      abs_path: "/home/user/app1/sentry/node-client.mjs",
      in_app: true,
      lineno: 3,
    });
    // unknown fields are kept
    expect(e.modules).toBeDefined();
    expect(e.contexts?.cloud_resource).toEqual({});
  });

  test("exception/breadcrumbs/threads as bare lists; nulls and empty exceptions dropped", () => {
    const e = normalizeEvent(
      {
        exception: [null, { value: "only value" }, { mechanism: { type: "x" } }, { type: "T", stacktrace: { frames: null } }],
        breadcrumbs: [{ message: "a", timestamp: "2026-11-22T10:43:00Z" }, null],
        threads: [{ id: 1, stacktrace: { frames: [{ function: "f" }] } }],
      },
      ctx,
    );
    expect(e.exception?.values.map((x) => x.type ?? x.value)).toEqual(["only value", "T"]);
    expect(e.exception?.values[1]?.stacktrace?.frames).toEqual([]);
    expect(e.breadcrumbs?.values).toHaveLength(1);
    expect(e.breadcrumbs?.values[0]?.timestamp).toBe(Date.UTC(2026, 10, 22, 10, 43) / 1000);
    expect(e.threads?.values[0]?.stacktrace?.frames[0]?.function).toBe("f");
    expect(e.errata.notes.some((n) => n.type === "dropped" && n.path === "exception.values.2")).toBe(true);
  });

  test("trimming: message, breadcrumbs (newest kept), frames (newest kept)", () => {
    const frames = Array.from({ length: 300 }, (_, i) => ({ function: `f${i}` }));
    const crumbs = Array.from({ length: 150 }, (_, i) => ({ message: `c${i}` }));
    const e = normalizeEvent(
      { message: "m".repeat(10_000), breadcrumbs: crumbs, exception: { values: [{ type: "E", stacktrace: { frames } }] } },
      ctx,
    );
    expect(e.logentry?.formatted).toHaveLength(DEFAULT_TRIM_LIMITS.messageChars);
    expect(e.breadcrumbs?.values).toHaveLength(100);
    expect(e.breadcrumbs?.values[99]?.message).toBe("c149");
    const kept = e.exception?.values[0]?.stacktrace?.frames ?? [];
    expect(kept).toHaveLength(250);
    expect(kept[249]?.function).toBe("f299");
    expect(e.errata.notes.map((n) => n.path)).toEqual(
      expect.arrayContaining(["logentry.formatted", "breadcrumbs", "exception.values.0.stacktrace.frames"]),
    );
  });

  test("does not mutate its input", () => {
    const raw = { message: "x", tags: { a: 1 } };
    normalizeEvent(raw, ctx);
    expect(raw).toEqual({ message: "x", tags: { a: 1 } });
  });
});

const GOLDENS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/normalize");
// `UPDATE_GOLDENS=1 npx vitest run --project unit src/core/normalize-event` re-records; review the diff.
const UPDATE = process.env.UPDATE_GOLDENS === "1";

describe("normalizeEvent: golden fixtures (input → expected output)", () => {
  const files = fs.readdirSync(GOLDENS).filter((f) => f.endsWith(".json"));
  test.each(files)("%s", (file) => {
    const full = path.join(GOLDENS, file);
    const fx = JSON.parse(fs.readFileSync(full, "utf8")) as { ctx: NormalizeContext; input: unknown; expected: unknown };
    const actual = JSON.parse(JSON.stringify(normalizeEvent(fx.input, fx.ctx))) as unknown;
    if (UPDATE || fx.expected === null) {
      fs.writeFileSync(full, `${JSON.stringify({ ...fx, expected: actual }, null, 1)}\n`);
      if (!UPDATE) throw new Error(`${file}: no expectation recorded yet; recorded one, review and rerun`);
      return;
    }
    expect(actual).toEqual(fx.expected);
  });
});

describe("normalizeEvent: Relay rules", () => {
  test("never mutates its input, also where frames are copied on write and slimmed", () => {
    for (const file of fs.readdirSync(GOLDENS)) {
      const fx = JSON.parse(fs.readFileSync(path.join(GOLDENS, file), "utf8")) as { ctx: NormalizeContext; input: unknown };
      const before = JSON.stringify(fx.input);
      const once = JSON.stringify(normalizeEvent(fx.input, fx.ctx));
      expect(JSON.stringify(fx.input), file).toBe(before);
      expect(JSON.stringify(normalizeEvent(fx.input, fx.ctx)), file).toBe(once);
    }
  });

  test("every change carries a path", () => {
    for (const file of fs.readdirSync(GOLDENS)) {
      const fx = JSON.parse(fs.readFileSync(path.join(GOLDENS, file), "utf8")) as { ctx: NormalizeContext; input: unknown };
      for (const note of normalizeEvent(fx.input, fx.ctx).errata.notes) expect(note.path, `${file}: ${note.detail}`).toBeTruthy();
    }
  });
});
