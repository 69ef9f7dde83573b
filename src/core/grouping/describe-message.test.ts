import { describe, expect, test } from "vitest";
import { normalizeEvent } from "../normalize-event";
import { statTagsOf } from "../search/event-tags";
import { describeEvent, isMessageStandIn } from "./describe";

const ctx = { receivedAt: Date.UTC(2026, 10, 22, 10, 44), clientIp: null, eventId: `${"0".repeat(31)}1` };
const frames = [{ filename: "/app/warmup.js", function: "warm", lineno: 3, in_app: true }];

describe("a message sent with a stack trace is a message, not an error", () => {
  test("SDK 11 captureMessage: typeless synthetic exception + message → titled by the message", () => {
    const e = normalizeEvent(
      {
        level: "warning",
        message: "Cache warmup took longer than 10s",
        exception: {
          values: [
            {
              value: "Cache warmup took longer than 10s",
              stacktrace: { frames },
              mechanism: { type: "generic", handled: true, synthetic: true },
            },
          ],
        },
      },
      ctx,
    );
    expect(isMessageStandIn(e)).toBe(true);
    const d = describeEvent(e);
    expect(d).toMatchObject({ title: "Cache warmup took longer than 10s", type: "default", culprit: "warm (/app/warmup.js)" });
    // Not "handled": nothing was thrown.
    const tags = Object.fromEntries(statTagsOf(e));
    expect(tags.handled).toBeUndefined();
    expect(tags.mechanism).toBeUndefined();
  });

  test("a stack in threads or a top-level stacktrace without exception: message title too", () => {
    const e = normalizeEvent({ message: "slow", threads: { values: [{ id: 1, current: true, stacktrace: { frames } }] } }, ctx);
    expect(describeEvent(e)).toMatchObject({ title: "slow", type: "default" });
  });

  test("a real exception (typed, or not synthetic) stays an error", () => {
    const typed = normalizeEvent({ exception: { values: [{ type: "TypeError", value: "x", mechanism: { synthetic: true } }] } }, ctx);
    expect(isMessageStandIn(typed)).toBe(false);
    const plain = normalizeEvent({ message: "m", exception: { values: [{ value: "boom", stacktrace: { frames } }] } }, ctx);
    expect(isMessageStandIn(plain)).toBe(false);
    expect(describeEvent(plain).type).toBe("error");
  });
});
