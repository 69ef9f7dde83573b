import { describe, expect, test } from "vitest";
import { sentryTagKey, traceItemAttributes } from "./tag-keys";

describe("Sentry's key lists", () => {
  test("tag keys: Sentry's labels, title case otherwise, sentry: prefixes dropped", () => {
    expect(sentryTagKey("region", 3)).toEqual({ key: "region", name: "Region", totalValues: 3 });
    expect(sentryTagKey("server_name", 1)).toMatchObject({ name: "Server" });
    expect(sentryTagKey("sentry:release", 2)).toEqual({ key: "release", name: "Release", totalValues: 2 });
    expect(sentryTagKey("browser.name", 1)).toMatchObject({ name: "Browser.Name" });
    expect(sentryTagKey("os_version", 1)).toMatchObject({ name: "Os Version" });
  });

  test("span attributes: the columns of a type the query API answers", () => {
    const numbers = traceItemAttributes(new URLSearchParams("attributeType=number&itemType=spans")).map((a) => a.key);
    expect(numbers).toEqual(["span.duration", "span.self_time"]);
    const strings = traceItemAttributes(new URLSearchParams("attributeType=string&itemType=spans&substringMatch=span.")).map((a) => a.key);
    expect(strings).toContain("span.op");
    expect(strings.every((k) => k.includes("span."))).toBe(true);
    expect(traceItemAttributes(new URLSearchParams("attributeType=number&itemType=logs")).map((a) => a.key)).toEqual([
      "severity_number",
      "sentry.severity_number",
    ]);
    expect(() => traceItemAttributes(new URLSearchParams("itemType=profiles"))).toThrow(/itemType/);
    expect(() => traceItemAttributes(new URLSearchParams("attributeType=date"))).toThrow(/attributeType/);
  });
});
