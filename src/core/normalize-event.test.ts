import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { capturedBody, corpusFiles, corpusJson } from "../../test/pipeline/corpus";
import { parseEnvelope, parseJsonObject } from "../ingest/parse-envelope";
import { DEFAULT_TRIM_LIMITS, type NormalizeContext } from "./event";
import { normalizeEvent, parseTimestamp } from "./normalize-event";

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

  test("string message → logentry.formatted (bugsink top-level-message-as-str)", () => {
    const e = normalizeEvent(corpusJson("bugsink/top-level-message-as-str.json"), ctx);
    expect(e.logentry?.formatted).toBe("I am the GO SDK and I'm sorry I put a string here");
    expect(e.message).toBeUndefined();
  });

  test("logentry as a string", () => {
    const e = normalizeEvent(corpusJson("bugsink/top-level-logentry-as-str.json"), ctx);
    expect(e.logentry?.formatted).toMatch(/^I'm not sure whether the GO SDK/);
  });

  test("logentry template with params is formatted, template kept", () => {
    const e = normalizeEvent({ logentry: { message: "a %s b %s", params: [1, "x"] } }, ctx);
    expect(e.logentry).toMatchObject({ message: "a %s b %s", formatted: "a 1 b x" });
    const d = normalizeEvent({ logentry: { message: "a %(one)s", params: { one: "1" } } }, ctx);
    expect(d.logentry?.formatted).toBe("a 1");
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

  test("tags: dict or pairs → string pairs; values stringified; trimmed to 200", () => {
    const a = normalizeEvent({ tags: { a: 1, b: true, c: null, ["k".repeat(300)]: "v".repeat(300) } }, ctx);
    expect(a.tags?.slice(0, 2)).toEqual([
      ["a", "1"],
      ["b", "true"],
    ]);
    const long = a.tags?.[2];
    expect(long?.[0]).toHaveLength(200);
    expect(long?.[1]).toHaveLength(200);
    expect(a.errata.notes.filter((n) => n.type === "trimmed")).toHaveLength(2);
    const b = normalizeEvent(corpusJson("bugsink/130-w-tuple.json"), ctx);
    expect(b.tags).toEqual([
      ["environment", "production"],
      ["release", "2025.6.2.0"],
    ]);
  });

  test("timestamps: float, RFC 3339 (with and without zone), out of range → receive time + note", () => {
    expect(parseTimestamp(1795343915.64)).toBe(1795343915.64);
    expect(parseTimestamp("2026-11-22T10:43:55.459Z")).toBeCloseTo(Date.UTC(2026, 10, 22, 10, 43, 55, 459) / 1000, 6);
    expect(parseTimestamp("2026-11-22T10:43:55.123456")).toBeCloseTo(Date.UTC(2026, 10, 22, 10, 43, 55) / 1000 + 0.123456, 6);
    expect(parseTimestamp("2026-11-22T12:43:55+02:00")).toBe(Date.UTC(2026, 10, 22, 10, 43, 55) / 1000);
    expect(parseTimestamp("yesterday")).toBeUndefined();
    const past = normalizeEvent({ timestamp: NOW / 1000 - 31 * 86400 }, ctx);
    expect(past.timestamp).toBe(NOW / 1000);
    expect(past.errata.notes[0]?.type).toBe("clock_drift");
    const future = normalizeEvent({ timestamp: NOW / 1000 + 120 }, ctx);
    expect(future.timestamp).toBe(NOW / 1000);
    const ok = normalizeEvent({ timestamp: NOW / 1000 - 3600 }, ctx);
    expect(ok.timestamp).toBe(NOW / 1000 - 3600);
    expect(ok.errata.notes).toEqual([]);
  });

  test("level mapping and defaults", () => {
    expect(normalizeEvent({}, ctx).level).toBe("error");
    expect(normalizeEvent({ level: "log" }, ctx).level).toBe("info");
    expect(normalizeEvent({ level: "critical" }, ctx).level).toBe("fatal");
    expect(normalizeEvent({ level: "WARNING" }, ctx).level).toBe("warning");
    const odd = normalizeEvent({ level: "shouting" }, ctx);
    expect(odd.level).toBe("error");
    expect(odd.errata.notes[0]?.type).toBe("invalid_level");
    expect(normalizeEvent(corpusJson("glitchtip/sentry_cli_send_event_no_level.json"), ctx).level).toBe("error");
  });

  test("event id: ctx wins, dashes removed, payload otherwise", () => {
    expect(normalizeEvent({ event_id: "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA" }, { ...ctx, eventId: undefined }).event_id).toBe(
      "a".repeat(32),
    );
    expect(normalizeEvent({ event_id: "a".repeat(32) }, { ...ctx, eventId: ID }).event_id).toBe(ID);
  });

  test("user: {{auto}} → client IP, int id → string, REMOTE_ADDR backfill", () => {
    const e = normalizeEvent({ user: { id: 1234, ip_address: "{{auto}}" } }, ctx);
    expect(e.user).toEqual({ id: "1234", ip_address: "203.0.113.7" });
    const f = normalizeEvent(corpusJson("bugsink/user-id-as-int.json"), ctx);
    expect(f.user?.id).toBe("1234");
    expect(f.user?.ip_address).toBe("127.0.0.1");
    const g = normalizeEvent({ sdk: { settings: { infer_ip: "auto" } } }, ctx);
    expect(g.user?.ip_address).toBe("203.0.113.7");
    const h = normalizeEvent({ sdk: { settings: { infer_ip: "never" } }, user: { id: "x" } }, ctx);
    expect(h.user).toEqual({ id: "x" });
  });

  test("frames: filename → abs_path, URL → path; in_app kept", () => {
    const e = normalizeEvent(
      {
        exception: {
          values: [
            {
              type: "E",
              stacktrace: {
                frames: [{ filename: "https://shop.example/assets/app.js?v=1", in_app: true }, { abs_path: "/srv/a.js" }, null],
              },
            },
          ],
        },
      },
      ctx,
    );
    expect(e.exception?.values[0]?.stacktrace?.frames).toEqual([
      { abs_path: "https://shop.example/assets/app.js?v=1", filename: "/assets/app.js", in_app: true },
      { abs_path: "/srv/a.js", filename: "/srv/a.js" },
    ]);
  });

  test("contexts: non-object values dropped (none-in-context)", () => {
    const e = normalizeEvent({ contexts: { os: { name: "Linux" }, bad: "x", nil: null } }, ctx);
    expect(e.contexts).toEqual({ os: { name: "Linux" } });
    expect(() => normalizeEvent(corpusJson("bugsink/none-in-context.json"), ctx)).not.toThrow();
  });

  test("request: headers as lists / pairs / object; query string split", () => {
    const e = normalizeEvent(corpusJson("bugsink/headers_as_lists.json"), ctx);
    expect(e.request?.headers?.find(([k]) => k === "Cache-Control")).toEqual(["Cache-Control", "max-age=0"]);
    const f = normalizeEvent({ request: { url: "https://x.test/p?a=1&b=two%20words", headers: [["A", "1"]], cookies: "s=1; t=2" } }, ctx);
    expect(f.request).toMatchObject({
      url: "https://x.test/p",
      query_string: [
        ["a", "1"],
        ["b", "two words"],
      ],
      headers: [["A", "1"]],
      cookies: [
        ["s", "1"],
        ["t", "2"],
      ],
    });
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

  test("fingerprint entries are stringified (custom-fingerprint-int)", () => {
    const e = normalizeEvent(corpusJson("sentry/custom-fingerprint-int.json"), ctx);
    expect(e.fingerprint).toEqual(["celery", "123", "sentry.tasks.store.process_event"]);
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
  test("clock drift: sent_at ≥ 55 min from the receive time shifts timestamps; less does not", () => {
    const sentAt = NOW - 2 * 3600_000;
    const e = normalizeEvent({ timestamp: sentAt / 1000, breadcrumbs: [{ timestamp: sentAt / 1000 - 1 }] }, { ...ctx, sentAt });
    expect(e.timestamp).toBe(NOW / 1000);
    expect(e.breadcrumbs?.values[0]?.timestamp).toBe(NOW / 1000 - 1);
    expect(e.errata.notes.map((n) => n.type)).toEqual(["clock_drift"]);
    const near = normalizeEvent({ timestamp: NOW / 1000 - 100 }, { ...ctx, sentAt: NOW - 54 * 60_000 });
    expect(near.timestamp).toBe(NOW / 1000 - 100);
    expect(near.errata.notes).toEqual([]);
    // An SDK clock ahead of ours is corrected the other way.
    const ahead = normalizeEvent({ timestamp: NOW / 1000 + 3600 }, { ...ctx, sentAt: NOW + 3600_000 });
    expect(ahead.timestamp).toBe(NOW / 1000);
  });

  test("frames: 50 keep detail, in-app ones first, at both ends of the stack", () => {
    const frames = Array.from({ length: 120 }, (_, i) => ({ function: `f${i}`, in_app: i >= 100, pre_context: ["x"], vars: { i } }));
    const e = normalizeEvent({ exception: { values: [{ type: "E", stacktrace: { frames } }] } }, ctx);
    const out = e.exception?.values[0]?.stacktrace?.frames ?? [];
    const detailed = out.flatMap((f, i) => (f.pre_context ? [i] : []));
    expect(detailed).toHaveLength(50);
    // all 20 in-app frames, and 15 system frames from each end
    expect(detailed.filter((i) => i >= 100)).toHaveLength(20);
    expect(detailed.slice(0, 15)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(detailed.slice(15, 30)).toEqual(Array.from({ length: 15 }, (_, i) => 85 + i));
    expect(out[50]?.vars).toBeUndefined();
    expect(e.errata.notes).toEqual([
      { type: "trimmed", path: "exception.values.0.stacktrace.frames", detail: expect.stringContaining("70 frame(s)") },
    ]);
  });

  test("data bags: small ones are the same object (no copy)", () => {
    const extra = { a: { b: [1, 2, 3] } };
    const e = normalizeEvent({ extra }, ctx);
    expect(e.extra).toBe(extra);
  });

  test("top-level stacktrace is normalised like the others", () => {
    const e = normalizeEvent({ stacktrace: { frames: [{ filename: "https://x.test/a.js" }] } }, ctx);
    expect((e.stacktrace as { frames: unknown[] }).frames).toEqual([{ abs_path: "https://x.test/a.js", filename: "/a.js" }]);
  });

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
