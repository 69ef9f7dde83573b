import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/contexts", () => {
  test("contexts: non-object values dropped (none-in-context)", () => {
    const e = normalizeEvent({ contexts: { os: { name: "Linux" }, bad: "x", nil: null } }, ctx);
    expect(e.contexts).toEqual({ os: { name: "Linux" } });
    expect(() => normalizeEvent(corpusJson("bugsink/none-in-context.json"), ctx)).not.toThrow();
  });
});
