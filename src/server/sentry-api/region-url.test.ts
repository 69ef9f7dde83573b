import { describe, expect, test } from "vitest";
import { regionUrlFor } from "./region-url";

describe("links.regionUrl per client", () => {
  test("PUBLIC_URL for the CLIs and everyone else; https for all", () => {
    expect(regionUrlFor("http://errata.test:9000/", "sentry-cli/3.8.0")).toBe("http://errata.test:9000");
    expect(regionUrlFor("http://errata.test:9000", null)).toBe("http://errata.test:9000");
    expect(regionUrlFor("https://errata.test", "sentry-mcp/0.36.0 (https://mcp.sentry.dev)")).toBe("https://errata.test");
  });
  test("empty for the MCP server over plain http, which refuses an http region", () => {
    expect(regionUrlFor("http://errata.test:9000", "sentry-mcp/0.36.0 (https://mcp.sentry.dev)")).toBe("");
    expect(regionUrlFor("http://errata.test:9000", "sentry-mcp-server/0.36.0")).toBe("");
  });
});
