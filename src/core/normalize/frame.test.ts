import { describe, expect, test } from "vitest";
import { normalizeEvent } from "../normalize-event";

const NOW = Date.UTC(2026, 10, 22, 10, 44, 0); // a receive time close to the node capture
const ID = "0123456789abcdef0123456789abcdef";
const ctx = { receivedAt: NOW, clientIp: "203.0.113.7", eventId: ID };

describe("normalize/frame", () => {
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

  test("patched frames: odd fields fixed in one new object, the SDK's frame untouched", () => {
    const nodeFrame = {
      filename: "/srv/app/orders.js",
      module: "orders",
      function: "charge",
      lineno: "42",
      colno: null,
      in_app: 1,
      package: "",
    };
    const inShape = { abs_path: "/srv/a.js", filename: "/srv/a.js", function: "f", lineno: 3 };
    const hostile = JSON.parse('{"filename":"/srv/b.js","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const before = JSON.stringify([nodeFrame, inShape, hostile]);
    const e = normalizeEvent({ exception: { values: [{ type: "E", stacktrace: { frames: [nodeFrame, inShape, hostile] } }] } }, ctx);
    const frames = e.exception?.values[0]?.stacktrace?.frames ?? [];
    expect(frames[0]).toEqual({
      abs_path: "/srv/app/orders.js",
      filename: "/srv/app/orders.js",
      module: "orders",
      function: "charge",
      lineno: 42,
      in_app: true,
    });
    // Already in shape: the same object, not a copy.
    expect(frames[1]).toBe(inShape);
    // A `__proto__` key from JSON stays a plain own key; nothing reaches the prototype.
    const third = frames[2] as Record<string, unknown>;
    expect(Object.getPrototypeOf(third)).toBe(Object.prototype);
    expect(Object.hasOwn(third, "__proto__")).toBe(true);
    expect((third as { polluted?: unknown }).polluted).toBeUndefined();
    expect(third.abs_path).toBe("/srv/b.js");
    expect(JSON.stringify([nodeFrame, inShape, hostile])).toBe(before);
  });
});
