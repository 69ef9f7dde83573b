import zlib from "node:zlib";
import { describe, expect, test } from "vitest";
import { DEFAULT_SCRUB_SETTINGS } from "../scrub/scrub-event";
import { splitRecording } from "./recording";
import { readReplayEvent, replayIdOfEvent } from "./replay-event";
import { parseReplaySearch, parseReplaySort } from "./replay-query";
import { activityScore, mayNeedScrubbing, scrubSegment, slowClickKind, summarizeSegment, summarizeText } from "./summary";
import { timelineOf } from "./timeline";

const ID = "41a2d26656d54062b33c5d71f70ee059";
const T = 1_795_808_308_000;
const crumb = (category: string, data: Record<string, unknown> = {}, at = T) => ({
  type: 5,
  timestamp: at,
  data: { tag: "breadcrumb", payload: { timestamp: at / 1000, category, message: "body > button#pay", data } },
});

describe("recordings", () => {
  test("a header line, then zlib or a plain array; anything else is refused with the catalogue code", () => {
    const zipped = Buffer.concat([Buffer.from('{"segment_id":3}\n'), zlib.deflateSync("[]")]);
    expect(splitRecording(zipped)).toMatchObject({ segmentId: 3, compressed: true });
    expect(splitRecording(Buffer.from('{"segment_id":0}\n  [{"type":4}]'))).toMatchObject({ segmentId: 0, compressed: false });
    for (const bad of ["[]", '{"segment_id":-1}\n[]', '{"segment":1}\n[]', "nope\n[]", '{"segment_id":1}\n{}', '{"segment_id":1}\n']) {
      expect(() => splitRecording(Buffer.from(bad)), bad).toThrow(expect.objectContaining({ code: "replay_invalid_recording" }));
    }
  });
});

describe("replay events", () => {
  test("fields are read leniently; browser and OS come from the User-Agent when the SDK sends no contexts", () => {
    const e = readReplayEvent(
      {
        replay_id: ID,
        segment_id: 2,
        replay_type: "buffer",
        replay_start_timestamp: 1795808308.1461,
        timestamp: 1795808315.081,
        error_ids: ["4FC05672-BFDD-4846-8C99-A1C0BA51DC91", "junk"],
        urls: ["https://a.example/", 42, ""],
        request: {
          headers: {
            "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
          },
        },
        user: { id: 7, email: "a@b.example" },
        tags: { plan: "pro" },
      },
      undefined,
    );
    expect(e).toMatchObject({
      replayId: ID,
      segmentId: 2,
      replayType: "buffer",
      startedAt: 1795808308146,
      errorIds: ["4fc05672bfdd48468c99a1c0ba51dc91"],
      urls: ["https://a.example/", "42"],
      browser: { name: "Chrome", version: "126.0.0.0" },
      os: { name: "Linux" },
      user: { id: "7", email: "a@b.example" },
      tags: [["plan", "pro"]],
    });
    expect(readReplayEvent({}, undefined)).toBeNull();
  });

  test("an error's replay: the replay context, else the replayId tag (all buffer mode sends)", () => {
    expect(replayIdOfEvent({ contexts: { replay: { replay_id: ID } } })).toBe(ID);
    expect(replayIdOfEvent({ tags: [["replayId", ID]] })).toBe(ID);
    expect(replayIdOfEvent({ tags: { replayId: ID.toUpperCase() } })).toBe(ID);
    expect(replayIdOfEvent({ tags: [["other", ID]] })).toBeNull();
  });
});

describe("what a segment says", () => {
  test("dead and rage clicks as Sentry counts them: a slow click that timed out after 7 s on a, button or input", () => {
    const slow = (d: Record<string, unknown>) => ({
      category: "ui.slowClickDetected",
      data: { endReason: "timeout", timeAfterClickMs: 7000, clickCount: 1, node: { tagName: "button" }, ...d },
    });
    expect(slowClickKind(slow({}))).toBe("dead");
    expect(slowClickKind(slow({ clickCount: 5 }))).toBe("rage");
    expect(slowClickKind(slow({ endReason: "mutation" }))).toBeUndefined();
    expect(slowClickKind(slow({ timeAfterClickMs: 3000 }))).toBeUndefined();
    expect(slowClickKind(slow({ node: { tagName: "div" } }))).toBeUndefined();
    const s = summarizeSegment([
      { type: 4, timestamp: T + 1000, data: { href: "https://a.example/" } },
      crumb("ui.click", {}, T + 2000),
      crumb("ui.slowClickDetected", { endReason: "timeout", timeAfterClickMs: 7000, clickCount: 6, node: { tagName: "BUTTON" } }, T + 3000),
      // the SDK writes its performance spans' timestamps in seconds
      { type: 5, timestamp: (T + 4000) / 1000, data: { tag: "performanceSpan", payload: { op: "memory" } } },
    ]);
    expect(s).toEqual({ startedAt: T + 1000, endedAt: T + 4000, clicks: 1, deadClicks: 1, rageClicks: 1, urls: ["https://a.example/"] });
    expect(activityScore(0, 1)).toBe(1);
    expect(activityScore(2, 4)).toBe(7);
    expect(activityScore(9, 9)).toBe(10);
  });

  test("the timeline: page loads, clicks, rage clicks, console, failed requests, navigations; the SDK's own logs left out", () => {
    const sec = (ms: number) => (T + ms) / 1000;
    const items = timelineOf([
      { type: 4, timestamp: T + 1000, data: { href: "https://a.example/" } },
      crumb("ui.click", {}, T + 2000),
      crumb("console", { logger: "replay" }, T + 2100),
      {
        type: 5,
        timestamp: T + 2200,
        data: { tag: "breadcrumb", payload: { timestamp: sec(2200), category: "console", level: "warn", message: "slow" } },
      },
      {
        type: 5,
        timestamp: sec(2300),
        data: {
          tag: "performanceSpan",
          payload: { op: "resource.fetch", startTimestamp: sec(2300), description: "/api", data: { method: "POST", statusCode: 500 } },
        },
      },
      {
        type: 5,
        timestamp: sec(2400),
        data: { tag: "performanceSpan", payload: { op: "navigation.push", startTimestamp: sec(2400), description: "https://a.example/b" } },
      },
      crumb("ui.slowClickDetected", { endReason: "timeout", timeAfterClickMs: 7000, clickCount: 5, node: { tagName: "a" } }, T + 2500),
    ]);
    expect(items.map((i) => [i.at - T, i.kind, i.label, i.level])).toEqual([
      [1000, "navigation", "Page load", undefined],
      [2000, "click", "Click", undefined],
      [2200, "console", "console.warn", "warn"],
      [2300, "network", "POST 500", "error"],
      [2400, "navigation", "Navigation", undefined],
      [2500, "rage", "Rage click", undefined],
    ]);
  });
});

describe("the fast path: the text tells what parsing would", () => {
  const benign = [
    { type: 4, timestamp: T, data: { href: "https://a.example/shop?page=2", width: 1280, height: 720 } },
    { type: 2, timestamp: T + 1, data: { node: { type: 0, id: 1, childNodes: [{ type: 3, id: 2, textContent: "***** ****" }] } } },
    crumb("ui.click", {}, T + 2000),
    { type: 3, timestamp: T + 2500, data: { source: 1, positions: [{ x: 1, y: 2, id: 1, timeOffset: -3 }] } },
    {
      type: 5,
      timestamp: (T + 3000) / 1000,
      data: { tag: "performanceSpan", payload: { op: "resource.fetch", description: "/api/items" } },
    },
    { type: 4, timestamp: T + 4000, data: { href: "https://a.example/cart", width: 1280, height: 720 } },
    crumb("ui.click", {}, T + 5000),
  ];

  test("a segment without slow clicks: the same summary from its text as from its events", () => {
    expect(summarizeText(JSON.stringify(benign))).toEqual(summarizeSegment(benign));
    const slow = [
      ...benign,
      crumb("ui.slowClickDetected", { endReason: "timeout", timeAfterClickMs: 7000, clickCount: 5, node: { tagName: "a" } }),
    ];
    expect(summarizeText(JSON.stringify(slow))).toBeNull();
  });

  test("the scrubbing pre-check: false only where the scrubber would change nothing", () => {
    expect(mayNeedScrubbing(JSON.stringify(benign), DEFAULT_SCRUB_SETTINGS)).toBe(false);
    expect(scrubSegment(benign, DEFAULT_SCRUB_SETTINGS)).toBe(benign);
    const secrets = [
      { headers: { Authorization: "Bearer abc" } },
      { url: "/api?session_id=1" },
      { url: "https://u:p@host/" },
      { body: { "api-key": "k" } },
      { card: "4242 4242 4242 4242" },
      { PRIVATE: "-----BEGIN RSA PRIVATE KEY-----" },
    ];
    for (const extra of secrets) {
      const events = [...benign, { type: 5, timestamp: T + 6000, data: { tag: "custom", payload: extra } }];
      expect(mayNeedScrubbing(JSON.stringify(events), DEFAULT_SCRUB_SETTINGS), JSON.stringify(extra)).toBe(true);
      expect(scrubSegment(events, DEFAULT_SCRUB_SETTINGS), JSON.stringify(extra)).not.toBe(events);
    }
    const custom = { ...DEFAULT_SCRUB_SETTINGS, extraKeys: ["order_ref"] };
    expect(mayNeedScrubbing(JSON.stringify([...benign, { "Order-Ref": "x" }]), custom)).toBe(true);
    expect(mayNeedScrubbing(JSON.stringify(benign), { ...DEFAULT_SCRUB_SETTINGS, enabled: false })).toBe(false);
  });
});

describe("the replay search", () => {
  test("the issues' language over replay fields: terms, negation, lists, durations, tags, free text", () => {
    const { filters } = parseReplaySearch(
      'user.email:a@b.example !count_errors:>0 duration:>=1.5m url:*checkout* release:[a,b] tags[plan]:pro browser.name:"Chrome Headless" leftover',
    );
    expect(filters).toEqual([
      { kind: "text", columns: ["user_email"], values: ["a@b.example"], negated: false },
      { kind: "number", column: "count_errors", op: "gt", value: 0, negated: true },
      { kind: "number", column: "duration", op: "gte", value: 90_000, negated: false },
      { kind: "url", values: ["*checkout*"], negated: false },
      { kind: "text", columns: ["release"], values: ["a", "b"], negated: false },
      { kind: "tag", key: "plan", values: ["pro"], negated: false },
      { kind: "text", columns: ["browser_name"], values: ["Chrome Headless"], negated: false },
      { kind: "free", text: "leftover" },
    ]);
    expect(() => parseReplaySearch("count_errors:lots")).toThrow(expect.objectContaining({ code: "invalid_query", position: 0 }));
    expect(() => parseReplaySearch("x:1 error_id:zz")).toThrow(expect.objectContaining({ code: "invalid_query", position: 4 }));
  });

  test("Sentry's sorts, descending with a minus; unknown ones refused", () => {
    expect(parseReplaySort(null)).toEqual({ column: "started_at", desc: true });
    expect(parseReplaySort("count_rage_clicks")).toEqual({ column: "count_rage_clicks", desc: false });
    expect(parseReplaySort("-browser.name")).toEqual({ column: "browser_name", desc: true });
    expect(() => parseReplaySort("-secret")).toThrow(expect.objectContaining({ code: "validation_failed" }));
  });
});
