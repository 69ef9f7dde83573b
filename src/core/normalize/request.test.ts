import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/request", () => {
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
});
