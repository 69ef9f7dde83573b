import { describe, expect, test } from "vitest";
import { sentryEventShape } from "./event";

const stored = {
  eventId: "a".repeat(32),
  issueId: 7,
  projectId: 3,
  projectSlug: "web",
  receivedAt: Date.UTC(2026, 0, 2, 3, 4, 5),
  size: 1234,
  event: {
    platform: "javascript",
    level: "error",
    environment: "prod",
    release: "shop@1.2.3",
    dist: "42",
    timestamp: Date.UTC(2026, 0, 2, 3, 4, 0) / 1000,
    tags: [["feature", "cart"]],
    user: { id: "u1", email: "u@example.com" },
    request: { url: "https://shop.example/cart", headers: [["User-Agent", "Mozilla/5.0"]] },
    contexts: { browser: { name: "Chrome", version: "120.0" }, os: { name: "Windows", version: "11" } },
    breadcrumbs: { values: [{ timestamp: Date.UTC(2026, 0, 2, 3, 3, 59) / 1000, category: "ui.click", message: "save" }] },
    exception: {
      values: [
        {
          type: "TypeError",
          value: "x is undefined",
          mechanism: { type: "onerror", handled: false },
          stacktrace: {
            frames: [
              {
                filename: "app.js",
                abs_path: "https://shop.example/app.js",
                function: "save",
                raw_function: "Cart.save",
                lineno: 10,
                colno: 5,
                pre_context: ["a", "b"],
                context_line: "c",
                post_context: ["d"],
                in_app: true,
              },
            ],
          },
        },
      ],
    },
  },
};

describe("sentryEventShape: the event as Sentry's event API answers it", () => {
  const e = sentryEventShape(stored);
  const entries = e.entries as Array<{ type: string; data: { values: Array<Record<string, unknown>> } }>;

  test("frames in camelCase with context pairs; the mechanism kept", () => {
    const exc = entries.find((x) => x.type === "exception")?.data.values[0] as Record<string, unknown>;
    expect(exc.mechanism).toEqual({ type: "onerror", handled: false });
    const frame = (exc.stacktrace as { frames: Array<Record<string, unknown>> }).frames[0];
    expect(frame).toMatchObject({
      filename: "app.js",
      absPath: "https://shop.example/app.js",
      function: "save",
      rawFunction: "Cart.save",
      lineNo: 10,
      colNo: 5,
      inApp: true,
      context: [
        [8, "a"],
        [9, "b"],
        [10, "c"],
        [11, "d"],
      ],
    });
    expect(frame).not.toHaveProperty("lineno");
  });

  test("breadcrumbs with ISO timestamps", () => {
    const crumbs = entries.find((x) => x.type === "breadcrumbs")?.data.values;
    expect(crumbs?.[0]).toMatchObject({ timestamp: "2026-01-02T03:03:59.000Z", category: "ui.click", message: "save" });
  });

  test("derived tags, release object, dates, size, dist", () => {
    const tags = Object.fromEntries(e.tags.map((t) => [t.key, t.value]));
    expect(tags).toMatchObject({
      environment: "prod",
      level: "error",
      release: "shop@1.2.3",
      feature: "cart",
      url: "https://shop.example/cart",
    });
    expect(tags.browser).toContain("Chrome");
    expect(tags.os).toContain("Windows");
    expect(tags.user).toBe("id:u1");
    expect(e.release).toMatchObject({ version: "shop@1.2.3" });
    expect(e.dist).toBe("42");
    expect(e.size).toBe(1234);
    expect(e.dateCreated).toBe("2026-01-02T03:04:00.000Z");
    expect(e.dateReceived).toBe("2026-01-02T03:04:05.000Z");
    expect(e).toMatchObject({ userReport: null, nextEventID: null, previousEventID: null });
  });
});
