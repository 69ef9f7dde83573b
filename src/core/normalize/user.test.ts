import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/user", () => {
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
});
