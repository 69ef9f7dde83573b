import { describe, expect, test } from "vitest";
import { hashedColor } from "./project";

describe("Sentry's project color", () => {
  // Expected values from sentry.utils.colors.get_hashed_color run in Python (md5 + colorsys).
  test("the slug's md5 hue, as Sentry computes it", () => {
    expect(hashedColor("web")).toBe("#bfaf3f");
    expect(hashedColor("api")).toBe("#3fa0bf");
    expect(hashedColor("internal")).toBe("#b43fbf");
  });
});
