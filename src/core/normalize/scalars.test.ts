import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/scalars: level and event id", () => {
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
});
