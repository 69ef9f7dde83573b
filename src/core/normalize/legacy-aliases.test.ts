import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { groupEvent } from "../grouping/index";
import { normalizeEvent } from "../normalize-event";

const ctx = { receivedAt: Date.UTC(2026, 0, 5, 10, 0, 0), clientIp: "203.0.113.7", eventId: "0123456789abcdef0123456789abcdef" };
const hash = (s: string) => createHash("sha256").update(s).digest("hex");

describe("normalize/legacy-aliases: the sentry.interfaces.* keys old SDKs send", () => {
  test("sentry.interfaces.Exception is the exception: typed title, frames, not <unlabeled event>", () => {
    const e = normalizeEvent(
      {
        "sentry.interfaces.Exception": {
          values: [
            {
              type: "ZeroDivisionError",
              value: "division by zero",
              stacktrace: { frames: [{ function: "pay", filename: "shop/pay.py", lineno: 4, in_app: true }] },
            },
          ],
        },
      },
      ctx,
    );
    expect(e.exception?.values?.[0]?.type).toBe("ZeroDivisionError");
    expect(e.exception?.values?.[0]?.stacktrace?.frames?.[0]?.function).toBe("pay");
    expect((e as Record<string, unknown>)["sentry.interfaces.Exception"]).toBeUndefined();
    expect(groupEvent(e, "v3", hash).title).toBe("ZeroDivisionError: division by zero");
  });

  test("Message, Stacktrace, Http, User and Template land on their modern fields", () => {
    const e = normalizeEvent(
      {
        "sentry.interfaces.Message": { message: "charge %s failed", params: ["c_1"] },
        "sentry.interfaces.Stacktrace": { frames: [{ function: "charge", filename: "billing.rb", lineno: 9 }] },
        "sentry.interfaces.Http": { url: "https://shop.example/pay", method: "POST" },
        "sentry.interfaces.User": { id: "u-7", email: "ada@example.com" },
        "sentry.interfaces.Template": { filename: "cart.html", lineno: 3, context_line: "{{ total }}" },
      },
      ctx,
    ) as Record<string, unknown> & ReturnType<typeof normalizeEvent>;
    expect(e.logentry).toMatchObject({ message: "charge %s failed", formatted: "charge c_1 failed" });
    expect((e.stacktrace as { frames?: Array<{ function?: string }> }).frames?.[0]?.function).toBe("charge");
    expect(e.request?.url).toBe("https://shop.example/pay");
    expect(e.request?.method).toBe("POST");
    expect(e.user?.id).toBe("u-7");
    expect(e.template).toMatchObject({ filename: "cart.html", context_line: "{{ total }}" });
    expect(Object.keys(e).filter((k) => k.startsWith("sentry.interfaces."))).toEqual([]);
    expect(groupEvent(e, "v3", hash).title).toBe("charge c_1 failed");
  });

  test("the modern key wins when both are sent", () => {
    const e = normalizeEvent({ user: { id: "modern" }, "sentry.interfaces.User": { id: "legacy" } }, ctx);
    expect(e.user?.id).toBe("modern");
  });
});
