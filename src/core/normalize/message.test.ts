import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/message: logentry and the legacy message", () => {
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
});
