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
});
