import { describe, expect, test } from "vitest";
import { metricsRefusal } from "./metrics-access";

describe("metricsRefusal", () => {
  const token = "0123456789abcdef0123";
  test("with a token: only the exact bearer token, from anywhere", () => {
    expect(metricsRefusal(token, `Bearer ${token}`, "203.0.113.9")).toBeUndefined();
    expect(metricsRefusal(token, `bearer ${token} `, "203.0.113.9")).toBeUndefined();
    expect(metricsRefusal(token, undefined, "127.0.0.1")).toBe("unauthenticated");
    expect(metricsRefusal(token, `Bearer ${token}x`, "127.0.0.1")).toBe("unauthenticated");
    expect(metricsRefusal(token, `Basic ${token}`, "127.0.0.1")).toBe("unauthenticated");
  });
  test("without a token: loopback only", () => {
    for (const a of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) expect(metricsRefusal(undefined, undefined, a)).toBeUndefined();
    for (const a of ["10.0.0.2", "::ffff:192.168.1.4", undefined]) expect(metricsRefusal(undefined, undefined, a)).toBe("forbidden");
  });
});
