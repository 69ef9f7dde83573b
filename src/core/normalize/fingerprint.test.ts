import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/fingerprint", () => {
  test("fingerprint entries are stringified (custom-fingerprint-int)", () => {
    const e = normalizeEvent(corpusJson("sentry/custom-fingerprint-int.json"), ctx);
    expect(e.fingerprint).toEqual(["celery", "123", "sentry.tasks.store.process_event"]);
  });
});
